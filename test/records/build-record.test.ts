import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { buildCacheRecord, buildExecutionRecord, toPublicMetadata } from '../../src/records/build-record.js';
import {
  conditionParseErrorSkip,
  conditionSkip,
  failedState,
  startedState,
  suspendedState,
  timeoutSkip,
  triggerRuleSkip,
} from '../../src/records/lifecycle.js';
import { unavailable } from '../../src/records/measured.js';
import { OUTPUT_PREVIEW_MAX_BYTES } from '../../src/records/output-preview.js';
import { executionMetadataSchema, executionRecordSchema } from '../../src/records/schemas/execution-record.js';
import { agentInput, execInput, RUN_ID } from './fixtures.js';

function failure(build: () => unknown): CairnError {
  try {
    build();
  } catch (err) {
    expect(err).toBeInstanceOf(CairnError);
    return err as CairnError;
  }
  throw new Error('expected the builder to throw');
}

describe('buildExecutionRecord', () => {
  it('builds a valid record for an exec node, defaulting binding and accounting', () => {
    const record = buildExecutionRecord(execInput());
    expect(executionRecordSchema.parse(record)).toEqual(record);
    expect(record.binding).toEqual({});
    expect(record.accounting).toBe('node');
    expect(record.output).toEqual({ text: 'built' });
  });

  it('builds a valid record for an agent node with every group', () => {
    const record = buildExecutionRecord(agentInput({ diagnostics: { iteration: 1 } }));
    expect(executionRecordSchema.parse(record)).toEqual(record);
    expect(record.sessionId).toBe('a1b2c3d4-0000-4000-8000-000000000000');
  });

  it('builds each lifecycle the builders make', () => {
    for (const lifecycle of [
      startedState(),
      failedState('exit 1', { retryable: false, failureKind: 'exec_failed' }),
      conditionSkip("$a.output == 'x'"),
      conditionParseErrorSkip('$a.output =='),
      triggerRuleSkip('failed', 'a'),
      triggerRuleSkip('skipped', 'a'),
      timeoutSkip(),
      suspendedState('approval'),
    ]) {
      expect(buildExecutionRecord(execInput({ lifecycle, output: undefined })).lifecycle).toEqual(lifecycle);
    }
  });

  it('throws a CairnError naming the offending field instead of returning an invalid record', () => {
    const err = failure(() => buildExecutionRecord(execInput({ spend: { ...execInput().spend, costUsd: { source: 'provider' } as never } })));
    expect(err.code).toBe('EXECUTION_RECORD_INVALID');
    expect(err.message).toContain("'spend.costUsd");
    expect(err.details).toMatchObject({ reason: 'record_invalid', runId: RUN_ID, path: 'build' });
  });

  it('refuses a path that is malformed or names another node', () => {
    expect(failure(() => buildExecutionRecord(execInput({ path: 'a//build' }))).message).toContain("'path'");
    expect(failure(() => buildExecutionRecord(execInput({ path: 'deploy' }))).message).toContain('does not match path');
    buildExecutionRecord(execInput({ path: 'fix/build', invocation: { id: 'i', startedAt: 't', loopPath: [{ groupId: 'fix', iteration: 1 }] } }));
    buildExecutionRecord(execInput({ path: 'fan[3]', node: { id: 'fan-instance', kind: 'compose_fan_out_instance' } }));
  });

  it('refuses a skip cause that does not explain the skip reason', () => {
    const lifecycle = { status: 'skipped', reason: 'when_condition', cause: { kind: 'upstream_failed', origin: 'a' } } as const;
    expect(failure(() => buildExecutionRecord(execInput({ lifecycle, output: undefined }))).message).toContain('does not explain');
  });

  it('refuses a session preview that is the full session id', () => {
    const input = agentInput();
    expect(() => buildExecutionRecord({ ...input, binding: { ...input.binding, sessionPreview: input.sessionId } })).toThrow(CairnError);
  });

  it('keeps an unreported resolved model unavailable beside the requested one', () => {
    const input = agentInput();
    const record = buildExecutionRecord({ ...input, binding: { model: { requested: 'large', resolved: unavailable('not_reported') } } });
    expect(record.binding.model?.resolved).toEqual(unavailable('not_reported'));
  });

  it('mirrors a cut output in output.persisted', () => {
    const text = 'q'.repeat(OUTPUT_PREVIEW_MAX_BYTES + 5);
    const record = buildExecutionRecord(execInput({ output: { text } }));
    expect(record.output?.text).toBe(text);
    expect(record.output?.persisted).toMatchObject({ truncated: true, originalBytes: OUTPUT_PREVIEW_MAX_BYTES + 5 });
  });
});

describe('public metadata', () => {
  it('drops output, diagnostics and the full session id', () => {
    const record = buildExecutionRecord(agentInput({ diagnostics: { expr: 'x' } }));
    const metadata = toPublicMetadata(record);
    expect(executionMetadataSchema.parse(metadata)).toEqual(metadata);
    expect(JSON.stringify(metadata)).not.toContain(record.sessionId!);
  });
});

describe('buildCacheRecord', () => {
  const node = { id: 'build', kind: 'exec', runtime: 'sh' } as const;

  it('builds replayed, reset and invalidated records', () => {
    expect(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'replayed', output: { text: 'a' } } }).cache).toEqual({
      action: 'replayed',
      output: { text: 'a' },
    });
    expect(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'reset', prior: { text: 'a' } } }).cache.action).toBe('reset');
    const invalidated = buildCacheRecord({
      runId: RUN_ID,
      path: 'build',
      node,
      cache: { action: 'invalidated', prior: { text: 'a' }, invalidatingDeps: ['setup'] },
    });
    expect(invalidated.cache).toEqual({ action: 'invalidated', prior: { text: 'a' }, invalidatingDeps: ['setup'] });
  });

  it('throws on an invalid cache record', () => {
    expect(() => buildCacheRecord({ runId: '', path: 'build', node, cache: { action: 'reset', prior: { text: 'a' } } })).toThrow(CairnError);
  });
});
