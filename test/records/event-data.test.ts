import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { buildCacheRecord, buildExecutionRecord } from '../../src/records/build-record.js';
import { cacheEventOf, fanOutInstancesEventOf, nodeEventOf } from '../../src/records/event-data.js';
import { nodeEventTypes } from '../../src/records/event-types.js';
import {
  conditionSkip,
  failedState,
  startedState,
  suspendedState,
  triggerRuleSkip,
} from '../../src/records/lifecycle.js';
import { unavailable } from '../../src/records/measured.js';
import { OUTPUT_PREVIEW_MAX_BYTES } from '../../src/records/output-preview.js';
import { cacheRecordSchema } from '../../src/records/schemas/cache-record.js';
import { executionRecordSchema } from '../../src/records/schemas/execution-record.js';
import { agentInput, execInput, RUN_ID } from './fixtures.js';

describe('node event of an execution record', () => {
  it('names the event after the lifecycle and keeps the record under data.execution', () => {
    const cases = [
      [startedState(), 'node_started'],
      [{ status: 'completed' as const }, 'node_completed'],
      [failedState('boom'), 'node_failed'],
      [conditionSkip('false'), 'node_skipped'],
      [suspendedState('approval'), 'node_suspended'],
    ] as const;
    for (const [lifecycle, type] of cases) {
      const record = buildExecutionRecord(execInput({ lifecycle, output: undefined }));
      const event = nodeEventOf(record);
      expect(event).toMatchObject({ run_id: RUN_ID, step_name: 'build', event_type: type });
      expect(executionRecordSchema.parse(event.data.execution)).toEqual(record);
    }
    expect(nodeEventTypes).toContain('node_suspended');
  });

  it('writes the upstream flat keys of an agent completion beside the record', () => {
    const event = nodeEventOf(buildExecutionRecord(agentInput({ diagnostics: { iteration: 2, maxIterations: 5, outputType: 'review' } })));
    const { execution: _execution, ...flat } = event.data;
    expect(flat).toEqual({
      type: 'agent',
      command: 'review-pr',
      provider: 'claude',
      model: 'large',
      tier: 'large',
      effort: 'high',
      duration_ms: 5000,
      tokens: { input: 1200, output: 300, cacheRead: 1000, cacheWrite: 50 },
      cost_usd: 0.25,
      stop_reason: 'end_turn',
      num_turns: 3,
      model_usage: { requested: 'large', resolved: 'claude-opus-4' },
      session_id: 'a1b2c3d4-0000-4000-8000-000000000000',
      node_output: 'LGTM',
      structured_output: { verdict: 'pass' },
      declared_output_paths: [['verdict']],
      iteration: 2,
      maxIterations: 5,
      output_type: 'review',
    });
  });

  it('writes no flat usage key for an unavailable value (absence never becomes zero)', () => {
    const input = agentInput();
    const spend = { tokens: unavailable('incomplete'), costUsd: unavailable('unsupported'), stopReason: unavailable('not_reported'), numTurns: unavailable('unknown') };
    const event = nodeEventOf(buildExecutionRecord({ ...input, spend, binding: { provider: 'codex', model: { resolved: unavailable('not_reported') } } }));
    for (const key of ['tokens', 'cost_usd', 'stop_reason', 'num_turns', 'model_usage', 'model']) expect(event.data).not.toHaveProperty(key);
  });

  it('writes an exec start with its legacy type and the process group id', () => {
    const event = nodeEventOf(buildExecutionRecord(execInput({ lifecycle: startedState(), output: undefined })), { pid: 4321 });
    expect(event.data).toMatchObject({ type: 'bash', pid: 4321 });
    const script = nodeEventOf(buildExecutionRecord(execInput({ node: { id: 'build', kind: 'exec', runtime: 'uv' } })));
    expect(script.data).toMatchObject({ type: 'script', runtime: 'uv', node_output: 'built', duration_ms: 42 });
  });

  it('writes failure, skip and suspension facts under their flat keys', () => {
    const providerFailure = { class: 'quota_exhausted' as const, evidence: 'credit balance too low' };
    const failed = nodeEventOf(
      buildExecutionRecord(execInput({ lifecycle: failedState('no credit', { retryable: false, failureKind: 'fatal', providerFailure }), output: undefined })),
    );
    expect(failed.data).toMatchObject({ error: 'no credit', retryable: false, failure_kind: 'fatal', provider_failure: providerFailure });
    const skipped = nodeEventOf(buildExecutionRecord(execInput({ lifecycle: conditionSkip("$a.output == 'x'"), output: undefined })));
    expect(skipped.data).toMatchObject({ reason: 'when_condition', expr: "$a.output == 'x'", cause: { kind: 'condition', expr: "$a.output == 'x'" } });
    const triggered = nodeEventOf(buildExecutionRecord(execInput({ lifecycle: triggerRuleSkip('failed', 'a'), output: undefined })));
    expect(triggered.data).toMatchObject({ reason: 'trigger_rule', cause: { kind: 'upstream_failed', origin: 'a' } });
    expect(triggered.data).not.toHaveProperty('expr');
    const suspended = nodeEventOf(buildExecutionRecord(execInput({ lifecycle: suspendedState('interactive_loop'), output: undefined })));
    expect(suspended.data).toMatchObject({ suspend_point: 'interactive_loop' });
  });

  it('marks rows that restate other rows with aggregate: true', () => {
    expect(nodeEventOf(buildExecutionRecord(agentInput({ accounting: 'aggregate' }))).data.aggregate).toBe(true);
    expect(nodeEventOf(buildExecutionRecord(agentInput())).data).not.toHaveProperty('aggregate');
  });

  it('stores at most 32 KiB of output, marked as cut, in both the flat keys and the record', () => {
    const text = '€'.repeat(OUTPUT_PREVIEW_MAX_BYTES);
    const event = nodeEventOf(buildExecutionRecord(execInput({ output: { text, spillPath: 'nodes/build.out' } })));
    const preview = event.data.node_output as string;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(OUTPUT_PREVIEW_MAX_BYTES);
    expect(event.data).toMatchObject({
      node_output_truncated: true,
      node_output_original_bytes: Buffer.byteLength(text),
      node_output_spill_path: 'nodes/build.out',
    });
    const execution = executionRecordSchema.parse(event.data.execution);
    expect(execution.output?.text).toBe(preview);
    expect(execution.output?.persisted).toEqual({ text: preview, truncated: true, originalBytes: Buffer.byteLength(text), spillPath: 'nodes/build.out' });
    expect(JSON.stringify(event.data).length).toBeLessThan(4 * OUTPUT_PREVIEW_MAX_BYTES);
  });
});

describe('cache events', () => {
  const node = { id: 'build', kind: 'exec', runtime: 'sh' } as const;
  const prior = { text: 'old', structured: { ok: true }, persisted: { text: 'old', truncated: true, originalBytes: 70_000, spillPath: 'nodes/build.out' } };

  it('writes a replay under the normal output keys with reason prior_success', () => {
    const event = cacheEventOf(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'replayed', output: prior } }));
    expect(event.event_type).toBe('node_skipped_prior_success');
    const { execution, ...flat } = event.data;
    expect(cacheRecordSchema.parse(execution).cache.action).toBe('replayed');
    expect(flat).toEqual({
      reason: 'prior_success',
      node_output: 'old',
      node_output_truncated: true,
      node_output_original_bytes: 70_000,
      node_output_spill_path: 'nodes/build.out',
      structured_output: { ok: true },
    });
  });

  it('writes a reset with the prior output and its provenance under prior_ keys', () => {
    const event = cacheEventOf(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'reset', prior } }));
    expect(event.event_type).toBe('node_always_run_reset');
    const { execution: _e, ...flat } = event.data;
    expect(flat).toEqual({
      prior_output: 'old',
      prior_output_truncated: true,
      prior_output_original_bytes: 70_000,
      prior_output_spill_path: 'nodes/build.out',
      prior_structured_output: { ok: true },
    });
  });

  it('writes an invalidation with reason stale_dependency and the invalidating deps', () => {
    const event = cacheEventOf(
      buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'invalidated', prior: { text: 'old' }, invalidatingDeps: ['setup'] } }),
    );
    expect(event.event_type).toBe('node_prior_cache_invalidated');
    expect(event.data).toMatchObject({ reason: 'stale_dependency', invalidating_deps: ['setup'], prior_output: 'old' });
    expect(event.data).not.toHaveProperty('prior_structured_output');
  });
});

describe('fan_out_instances event', () => {
  it('writes a valid snapshot under data.instances and refuses an invalid one', () => {
    const instances = [{ ordinal: 0, identity: 'a', item: 'a.ts', inputs: { file: 'a.ts' } }];
    expect(fanOutInstancesEventOf(RUN_ID, 'review', instances)).toEqual({
      run_id: RUN_ID,
      step_name: 'review',
      event_type: 'fan_out_instances',
      data: { instances },
    });
    expect(() => fanOutInstancesEventOf(RUN_ID, 'review', [{ ...instances[0]!, ordinal: 3 }])).toThrow(CairnError);
  });
});
