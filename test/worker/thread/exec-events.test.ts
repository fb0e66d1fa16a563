import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executionRecordSchema } from '../../../src/records/schemas/execution-record.js';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

let h: ExecHarness;
beforeEach(async () => {
  h = await makeExecHarness();
});
afterEach(async () => {
  await h.home.close();
});

const notApplicable = { source: 'unavailable', reason: 'not_applicable' };

describe('events of an exec attempt', () => {
  it('writes node_started with the pid and node_completed with the output, each with a valid record', async () => {
    const task = h.task('echo hello', { nodeId: 'greet' });
    const result = await h.pool.runAttempt(task);
    const [started, completed, ...rest] = await h.events('greet');

    expect(rest).toEqual([]);
    expect(started).toMatchObject({
      event_type: 'node_started',
      run_id: h.runId,
      conversation_id: h.conversationId,
      step_name: 'greet',
      data: { type: 'bash', pid: result.pid },
    });
    expect(completed).toMatchObject({
      event_type: 'node_completed',
      step_name: 'greet',
      data: { type: 'bash', node_output: 'hello', duration_ms: result.durationMs },
    });

    const startRecord = executionRecordSchema.parse(started!.data.execution);
    const endRecord = executionRecordSchema.parse(completed!.data.execution);
    for (const record of [startRecord, endRecord]) {
      expect(record).toMatchObject({
        runId: h.runId,
        path: 'greet',
        node: { id: 'greet', kind: 'exec', runtime: 'sh' },
        invocation: task.invocation,
        attempt: { id: task.attempt.id, startedAt: result.startedAt },
        binding: {},
        accounting: 'node',
        spend: { tokens: notApplicable, costUsd: notApplicable, stopReason: notApplicable, numTurns: notApplicable },
      });
    }
    expect(startRecord.lifecycle).toEqual({ status: 'started' });
    expect(endRecord.lifecycle).toEqual({ status: 'completed' });
    expect(endRecord.timing).toEqual({ startedAt: result.startedAt, durationMs: result.durationMs });
    expect(endRecord.output).toEqual({ text: 'hello' });
  });

  it('writes node_failed with the error and failure kind for a failing script', async () => {
    await h.pool.runAttempt(h.task('echo boom >&2; exit 2', { nodeId: 'broken' }));
    const [, failed] = await h.events('broken');

    expect(failed).toMatchObject({
      event_type: 'node_failed',
      data: { type: 'bash', error: 'exit code 2: boom', failure_kind: 'exec_failed' },
    });
    expect(typeof failed!.data.duration_ms).toBe('number');
    const record = executionRecordSchema.parse(failed!.data.execution);
    expect(record.lifecycle).toEqual({ status: 'failed', error: 'exit code 2: boom', failureKind: 'exec_failed' });
    expect(record.output).toBeUndefined();
  });

  it('records a long output as a 32 KiB preview and says how long it was', async () => {
    const result = await h.pool.runAttempt(h.task("head -c 40000 /dev/zero | tr '\\0' x", { nodeId: 'long' }));
    expect(result.output).toHaveLength(40_000);
    const [, completed] = await h.events('long');
    expect(completed!.data).toMatchObject({ node_output_truncated: true, node_output_original_bytes: 40_000 });
    expect(completed!.data.node_output).toHaveLength(32 * 1024);
  });

  it('keeps the invocation and loop frames the supervisor sent', async () => {
    const task = h.task('true', {
      nodeId: 'step',
      path: 'fix/step',
      invocation: { id: 'inv-1', startedAt: '2025-01-01T00:00:00.000Z', loopPath: [{ groupId: 'fix', iteration: 2 }] },
      attempt: { id: 'attempt-2', number: 2 },
    });
    await h.pool.runAttempt(task);
    const [started] = await h.events('fix/step');
    const record = executionRecordSchema.parse(started!.data.execution);
    expect(record.invocation).toEqual(task.invocation);
    expect(record.attempt.id).toBe('attempt-2');
  });
});
