import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import type { AttemptNotice } from '../../../src/worker/attempt-protocol.js';
import { waitFor } from '../../helpers/wait-for.js';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

const unresponsiveTask = fileURLToPath(new URL('../../fixtures/worker/unresponsive-task.mjs', import.meta.url));

let h: ExecHarness;
beforeEach(async () => {
  // One thread, so that the attempt that blocks it and its neighbour share it.
  h = await makeExecHarness({ filename: unresponsiveTask, maxThreads: 1, cancelMarginMs: 300 });
});
afterEach(async () => {
  await h.home.close();
});

type Spawned = Extract<AttemptNotice, { type: 'spawned' }>;
const spawnedPid = (attemptId: string) =>
  waitFor(() => h.notices.find((n): n is Spawned => n.type === 'spawned' && n.attemptId === attemptId)?.pid, {
    what: `attempt ${attemptId} to spawn`,
  });

describe('a worker that does not answer a cancel', () => {
  it('when only slow: the pool kills the group and records the end, and leaves the thread and its other attempts alone', async () => {
    const neighbour = h.task('sleep 1; echo done', { env: { MODE: 'wait' } });
    const neighbourResult = h.pool.runAttempt(neighbour);
    const neighbourPid = await spawnedPid(neighbour.attempt.id);

    const slow = h.task('sleep 60 & sleep 60', { env: { MODE: 'deaf' }, killGraceMs: 100 });
    const controller = new AbortController();
    const slowResult = h.pool.runAttempt(slow, { signal: controller.signal });
    const slowPid = await spawnedPid(slow.attempt.id);

    controller.abort();

    expect(await slowResult).toMatchObject({ status: 'cancelled', failureKind: 'cancelled', pid: slowPid });
    expect(isProcessGroupAlive(slowPid)).toBe(false);
    // Another run's attempt on the same thread finishes as it would have: not failed, not killed.
    expect(await neighbourResult).toMatchObject({ status: 'completed' });
    expect(isProcessGroupAlive(neighbourPid)).toBe(false);
    const ends = (await h.events(slow.nodeId)).filter((e) => e.event_type !== 'node_started');
    expect(ends.map((e) => [e.event_type, e.data.failure_kind])).toEqual([['node_failed', 'cancelled']]);
  });

  it('when blocked: the pool terminates the thread, kills the groups and records the ends', async () => {
    const neighbour = h.task('sleep 60 & sleep 60', { env: { MODE: 'wait' } });
    const neighbourResult = h.pool.runAttempt(neighbour);
    const neighbourPid = await spawnedPid(neighbour.attempt.id);

    const stuck = h.task('sleep 60 & sleep 60', { env: { MODE: 'block' }, killGraceMs: 100 });
    const controller = new AbortController();
    const stuckResult = h.pool.runAttempt(stuck, { signal: controller.signal });
    const stuckPid = await spawnedPid(stuck.attempt.id);

    controller.abort();

    expect(await stuckResult).toMatchObject({
      status: 'cancelled',
      failureKind: 'cancelled',
      error: 'Cancelled by user',
      pid: stuckPid,
    });
    expect(isProcessGroupAlive(stuckPid)).toBe(false);

    // The neighbour lost its thread: its group is killed too, and it comes back as a transient failure.
    expect(await neighbourResult).toMatchObject({ status: 'failed', failureKind: 'transient' });
    expect(isProcessGroupAlive(neighbourPid)).toBe(false);

    // The thread could not record either end: the pool did, once each, through the same factory.
    const ends = async (nodeId: string) => (await h.events(nodeId)).filter((e) => e.event_type !== 'node_started');
    expect((await ends(stuck.nodeId)).map((e) => [e.event_type, e.data.failure_kind])).toEqual([['node_failed', 'cancelled']]);
    expect((await ends(neighbour.nodeId)).map((e) => [e.event_type, e.data.failure_kind])).toEqual([['node_failed', 'transient']]);

    // The pool replaces the thread and keeps working.
    const next = await h.pool.runAttempt(h.task('true', { env: { MODE: 'wait' } }));
    expect(next.status).toBe('completed');
  });
});
