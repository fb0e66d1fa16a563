import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OUTPUT_PREVIEW_MAX_BYTES } from '../../../src/records/output-preview.js';
import { executionRecordSchema } from '../../../src/records/schemas/execution-record.js';
import { readPersistedStream } from '../../../src/records/stream-log.js';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

/** Issue 8: both streams of every attempt are kept, bounded, the rest spilled per attempt. */

let h: ExecHarness;
beforeEach(async () => {
  h = await makeExecHarness();
});
afterEach(async () => {
  await h.home.close();
});

async function terminal(nodeId: string) {
  const events = await h.events(nodeId);
  const last = events.at(-1)!;
  expect(['node_completed', 'node_failed']).toContain(last.event_type);
  return last;
}

describe('streams of an exec attempt', () => {
  it('keeps a failed node’s stdout and its whole stderr, not just the error text', async () => {
    const task = h.task('echo building; echo step one >&2; echo step two >&2; exit 3', { nodeId: 'build' });
    const result = await h.pool.runAttempt(task);
    expect(result.status).toBe('failed');
    expect(result.stderr).toBe('step one\nstep two\n');

    const failed = await terminal('build');
    const record = executionRecordSchema.parse(failed.data.execution);
    expect(record.lifecycle).toMatchObject({ status: 'failed', error: 'exit code 3: step one\nstep two' });
    expect(record.output?.text).toBe('building');
    expect(readPersistedStream(failed.data)).toEqual({ text: 'step one\nstep two\n', truncated: false });
  });

  it('keeps a successful node’s stderr', async () => {
    await h.pool.runAttempt(h.task('echo result; echo warning: deprecated flag >&2', { nodeId: 'warn' }));
    const completed = await terminal('warn');
    expect(completed.data.node_output).toBe('result');
    expect(readPersistedStream(completed.data)?.text).toBe('warning: deprecated flag\n');
  });

  it('records no stderr when the node wrote none', async () => {
    await h.pool.runAttempt(h.task('echo quiet', { nodeId: 'quiet' }));
    expect(readPersistedStream((await terminal('quiet')).data)).toBeUndefined();
  });

  it('spills a long stderr to <attempt>.err and a failed node’s long stdout to <attempt>.out', async () => {
    const lines = 5000; // ~49 KiB each way, past the 32 KiB preview
    const script = `i=0; while [ $i -lt ${lines} ]; do echo "out line $i"; echo "err line $i" >&2; i=$((i+1)); done; exit 1`;
    const task = h.task(script, { nodeId: 'noisy' });
    const result = await h.pool.runAttempt(task);
    expect(result.status).toBe('failed');

    const failed = await terminal('noisy');
    const stderr = readPersistedStream(failed.data)!;
    expect(stderr.truncated).toBe(true);
    expect(Buffer.byteLength(stderr.text)).toBeLessThanOrEqual(OUTPUT_PREVIEW_MAX_BYTES);
    expect(stderr.originalBytes).toBe(Buffer.byteLength(result.stderr!));
    expect(stderr.spillPath).toMatch(new RegExp(`noisy[\\\\/]${task.attempt.id}\\.err$`));
    expect(readFileSync(stderr.spillPath!, 'utf8')).toBe(result.stderr);
    expect(result.stderr!.endsWith(`err line ${lines - 1}\n`)).toBe(true);

    const record = executionRecordSchema.parse(failed.data.execution);
    expect(record.output?.persisted).toMatchObject({ truncated: true });
    expect(record.output?.persisted?.spillPath).toMatch(new RegExp(`${task.attempt.id}\\.out$`));
    expect(readFileSync(record.output!.persisted!.spillPath!, 'utf8')).toBe(result.output);
    // The error text carries the end of stderr, where a failure's reason usually is.
    expect(record.lifecycle.status === 'failed' && record.lifecycle.error.endsWith(`err line ${lines - 1}`)).toBe(true);
  });
});
