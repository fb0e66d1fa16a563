import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import type { AttemptNotice } from '../../../src/worker/attempt-protocol.js';
import { waitFor } from '../../helpers/wait-for.js';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

let h: ExecHarness;
beforeEach(async () => {
  h = await makeExecHarness();
});
afterEach(async () => {
  await h.home.close();
});

type Spawned = Extract<AttemptNotice, { type: 'spawned' }>;

function spawnedNotice(attemptId: string): Spawned | undefined {
  return h.notices.find((n): n is Spawned => n.type === 'spawned' && n.attemptId === attemptId);
}

/** A bash body with two background children in its group; all of them wait for a gate file. */
function gatedScript(gate: string): string {
  const waitForGate = `while [ ! -e '${gate}' ]; do sleep 0.02; done`;
  return `for i in 1 2; do ( ${waitForGate} ) >/dev/null & done; ${waitForGate}; wait; echo through`;
}

describe('cancelling an exec attempt', () => {
  it('kills the whole process group and leaves other attempts on the same thread running', async () => {
    const gate = join(h.home.home, 'gate');
    // Three attempts on two threads: at least two of them share a thread.
    const tasks = [0, 1, 2].map(() => h.task(gatedScript(gate)));
    const controllers = tasks.map(() => new AbortController());
    const results = tasks.map((task, i) => h.pool.runAttempt(task, { signal: controllers[i]!.signal }));
    const spawned = await waitFor(() => {
      const all = tasks.map((t) => spawnedNotice(t.attempt.id));
      return all.every(Boolean) ? (all as Spawned[]) : undefined;
    }, { what: 'all three attempts to spawn' });
    const victim = spawned.findIndex((s, i) => spawned.some((o, j) => j !== i && o.threadId === s.threadId));
    const neighbour = spawned.findIndex((s, j) => j !== victim && s.threadId === spawned[victim]!.threadId);
    expect(victim).toBeGreaterThanOrEqual(0);
    const victimPid = spawned[victim]!.pid;
    expect(isProcessGroupAlive(victimPid)).toBe(true);

    controllers[victim]!.abort();
    const cancelled = await results[victim]!;

    expect(cancelled).toMatchObject({
      status: 'cancelled',
      failureKind: 'cancelled',
      error: 'Cancelled by user',
      pid: victimPid,
    });
    expect(isProcessGroupAlive(victimPid)).toBe(false);

    await writeFile(gate, '');
    const others = await Promise.all(results.filter((_, i) => i !== victim));
    for (const other of others) expect(other).toMatchObject({ status: 'completed', output: 'through' });
    expect(spawned[neighbour]!.threadId).toBe(spawned[victim]!.threadId);

    const victimEvents = await h.events(tasks[victim]!.nodeId);
    expect(victimEvents.map((e) => e.event_type)).toEqual(['node_started', 'node_failed']);
    expect(victimEvents[1]!.data).toMatchObject({ error: 'Cancelled by user', failure_kind: 'cancelled' });
  });

  it('records a shutdown as a transient failure that will run again', async () => {
    const task = h.task(gatedScript(join(h.home.home, 'never')));
    const controller = new AbortController();
    const result = h.pool.runAttempt(task, { signal: controller.signal });
    const { pid } = await waitFor(() => spawnedNotice(task.attempt.id), { what: 'the spawn' });

    controller.abort({ reason: 'shutdown' });

    expect(await result).toMatchObject({ status: 'cancelled', failureKind: 'transient', retryable: true });
    expect(isProcessGroupAlive(pid)).toBe(false);
    const [, failed] = await h.events(task.nodeId);
    expect(failed!.event_type).toBe('node_failed');
    expect(failed!.data.error).toMatch(/interrupted by server shutdown.*run again/i);
    expect(failed!.data.failure_kind).toBe('transient');
  });

  it('answers an attempt cancelled before it was dispatched without running it', async () => {
    const controller = new AbortController();
    controller.abort('shutdown');
    const result = await h.pool.runAttempt(h.task('touch should-not-exist'), { signal: controller.signal });
    expect(result).toMatchObject({ status: 'not_started' });
    expect(await h.events()).toEqual([]);
  });
});

describe('timing out an exec attempt', () => {
  it('kills the whole process group and fails with a timeout naming the limit', async () => {
    const task = h.task('sleep 60 & echo started; sleep 60', { timeoutMs: 300, killGraceMs: 100 });
    const result = await h.pool.runAttempt(task);

    expect(result).toMatchObject({ status: 'failed', failureKind: 'timeout', output: 'started' });
    expect(result.error).toMatch(/timed out after 300 ms/);
    expect(isProcessGroupAlive(result.pid!)).toBe(false);
    const events = await h.events(task.nodeId);
    expect(events.map((e) => e.event_type)).toEqual(['node_started', 'node_failed']);
    expect(events[1]!.data).toMatchObject({ failure_kind: 'timeout' });
  });

  it('escalates to SIGKILL for a script that ignores SIGTERM', async () => {
    const task = h.task('trap "" TERM; ( trap "" TERM; sleep 60 ) & sleep 60', { timeoutMs: 200, killGraceMs: 100 });
    const result = await h.pool.runAttempt(task);
    expect(result.failureKind).toBe('timeout');
    expect(isProcessGroupAlive(result.pid!)).toBe(false);
  });
});
