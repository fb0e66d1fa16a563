import { describe, expect, it } from 'vitest';
import { buildCacheRecord, toPublicMetadata, buildExecutionRecord } from '../../src/records/build-record.js';
import { cacheEventOf, fanOutInstancesEventOf } from '../../src/records/event-data.js';
import { failedState, startedState } from '../../src/records/lifecycle.js';
import { OUTPUT_PREVIEW_MAX_BYTES } from '../../src/records/output-preview.js';
import { rebuildRunSnapshot } from '../../src/records/run-snapshot.js';
import type { OutputInput } from '../../src/records/output-preview.js';
import { agentInput, agentSpendEvent, execInput, persist, recordEvent, RUN_ID } from './fixtures.js';

const node = { id: 'build', kind: 'exec', runtime: 'sh' } as const;
const replay = (output: OutputInput) => cacheEventOf(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'replayed', output } }));
const reset = (prior: OutputInput) => cacheEventOf(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'reset', prior } }));
const invalidated = (prior: OutputInput) =>
  cacheEventOf(buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'invalidated', prior, invalidatingDeps: ['setup'] } }));

describe('resume snapshot: reusable output', () => {
  it('restores a completion: text, structured output, declared paths and its metadata', () => {
    const input = agentInput();
    const snapshot = rebuildRunSnapshot(persist([recordEvent(input)]));
    expect(snapshot.nodes.get('review')?.reusable).toEqual({
      text: 'LGTM',
      structured: { verdict: 'pass' },
      declaredOutputPaths: [['verdict']],
      completion: toPublicMetadata(buildExecutionRecord(input)),
      replayed: false,
      seq: 1,
    });
  });

  it('restores the truncation and spill provenance of a long output', () => {
    const text = 'l'.repeat(OUTPUT_PREVIEW_MAX_BYTES * 2);
    const reusable = rebuildRunSnapshot(persist([recordEvent(execInput({ output: { text, spillPath: 'nodes/build.out' } }))])).nodes.get('build')?.reusable;
    expect(reusable?.text).toHaveLength(OUTPUT_PREVIEW_MAX_BYTES);
    expect(reusable?.persisted).toEqual({ text: reusable?.text, truncated: true, originalBytes: text.length, spillPath: 'nodes/build.out' });
  });

  it('never turns a failed row into reusable success, but counts its spend', () => {
    const events = persist([
      agentSpendEvent('review', 0.25, { input: 10, output: 1 }),
      // A later pass ran the node again and it failed.
      agentSpendEvent('review', 0.5, { input: 20, output: 2 }, { lifecycle: failedState('overloaded'), output: { text: 'half an answer' } }),
    ]);
    const nodeSnapshot = rebuildRunSnapshot(events).nodes.get('review')!;
    expect(nodeSnapshot.reusable).toBeUndefined();
    expect(nodeSnapshot.usage).toEqual({ costUsd: 0.75, tokensIn: 30, tokensOut: 3 });
  });

  it('supersedes a success with any later start', () => {
    const events = persist([recordEvent(execInput()), recordEvent(execInput({ lifecycle: startedState(), output: undefined }))]);
    expect(rebuildRunSnapshot(events).nodes.get('build')?.reusable).toBeUndefined();
  });

  it('lets a replay inherit the completion it replays, pass after pass, with no new spend', () => {
    const completion = execInput({ output: { text: 'built', structured: { ok: 1 } } });
    const events = persist([recordEvent(completion), replay({ text: 'built', structured: { ok: 1 } }), replay({ text: 'built', structured: { ok: 1 } })]);
    const snapshot = rebuildRunSnapshot(events);
    const nodeSnapshot = snapshot.nodes.get('build')!;
    expect(nodeSnapshot.reusable).toMatchObject({ text: 'built', structured: { ok: 1 }, replayed: true, seq: 3 });
    expect(nodeSnapshot.reusable?.completion).toEqual(toPublicMetadata(buildExecutionRecord(completion)));
    expect(nodeSnapshot.status).toBe('completed');
    expect(nodeSnapshot.lastEventType).toBe('node_skipped_prior_success');
  });

  it('drops reusable output on an always-run reset and on a stale-dependency invalidation', () => {
    expect(rebuildRunSnapshot(persist([recordEvent(execInput()), reset({ text: 'built' })])).nodes.get('build')?.reusable).toBeUndefined();
    expect(rebuildRunSnapshot(persist([recordEvent(execInput()), invalidated({ text: 'built' })])).nodes.get('build')?.reusable).toBeUndefined();
    const rerun = persist([recordEvent(execInput()), reset({ text: 'built' }), recordEvent(execInput({ output: { text: 'rebuilt' } }))]);
    expect(rebuildRunSnapshot(rerun).nodes.get('build')?.reusable?.text).toBe('rebuilt');
  });

  it('turns legacy declared_fields into root output paths when declared_output_paths is absent', () => {
    const events = persist([
      { event_type: 'node_completed', step_name: 'a', data: { node_output: '{"x":1}', structured_output: { x: 1 }, declared_fields: ['x', 'y'] } },
      { event_type: 'node_completed', step_name: 'b', data: { node_output: '', declared_fields: ['x'], declared_output_paths: [['x', 'deep']] } },
    ]);
    const nodes = rebuildRunSnapshot(events).nodes;
    expect(nodes.get('a')?.reusable).toMatchObject({ structured: { x: 1 }, declaredOutputPaths: [['x'], ['y']] });
    expect(nodes.get('b')?.reusable?.declaredOutputPaths).toEqual([['x', 'deep']]);
  });

  it('reads a legacy replay and its provenance from flat keys', () => {
    const events = persist([
      {
        event_type: 'node_skipped_prior_success',
        step_name: 'a',
        data: { reason: 'prior_success', node_output: 'head', node_output_truncated: true, node_output_original_bytes: 90_000, node_output_spill_path: 'a.out' },
      },
    ]);
    expect(rebuildRunSnapshot(events).nodes.get('a')?.reusable).toEqual({
      text: 'head',
      persisted: { text: 'head', truncated: true, originalBytes: 90_000, spillPath: 'a.out' },
      replayed: true,
      seq: 1,
    });
  });
});

describe('resume snapshot: usage and fan-out instances', () => {
  it('gives each node its own spend and the run its totals', () => {
    const events = persist([
      agentSpendEvent('a', 0.25, { input: 10, output: 1 }, { lifecycle: failedState('transient') }),
      agentSpendEvent('a', 0.25, { input: 10, output: 1 }),
      agentSpendEvent('b', 0.5, { input: 5, output: 5 }),
    ]);
    const snapshot = rebuildRunSnapshot(events);
    expect(snapshot.nodes.get('a')?.usage).toEqual({ costUsd: 0.5, tokensIn: 20, tokensOut: 2 });
    expect(snapshot.usage).toEqual({ costUsd: 1, tokensIn: 25, tokensOut: 7 });
    expect(snapshot.totals).toEqual({ total_cost_usd: 1, total_tokens_in: 25, total_tokens_out: 7 });
  });

  it('restores the first valid fan-out instance snapshot', () => {
    const first = [{ ordinal: 0, identity: 'a', item: 'a', inputs: {} }];
    const later = [{ ordinal: 0, identity: 'z', item: 'z', inputs: {} }];
    const events = persist([
      { event_type: 'fan_out_instances', step_name: 'review', data: { instances: [{ ordinal: 5, identity: 'bad' }] } },
      fanOutInstancesEventOf(RUN_ID, 'review', first),
      fanOutInstancesEventOf(RUN_ID, 'review', later),
      { event_type: 'fan_out_instances', step_name: null, data: { instances: first } },
    ]);
    const snapshot = rebuildRunSnapshot(events);
    expect(snapshot.fanOutInstances).toEqual(new Map([['review', first]]));
    expect(snapshot.nodes.size).toBe(0);
  });
});
