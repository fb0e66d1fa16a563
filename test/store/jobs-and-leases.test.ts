import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('jobs', () => {
  it('queues a start job with every new run, and hands it to exactly one claimant', async () => {
    const api = home.openStore();
    const a = home.openStore();
    const b = home.openStore();
    const run = await api.createRun(newRun());
    expect(run.status).toBe('pending');

    const [first, second] = await Promise.all([a.claimJob('sup-a', 10_000), b.claimJob('sup-b', 10_000)]);
    const claimed = [first, second].filter(Boolean);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ kind: 'start_run', run_id: run.id, status: 'claimed' });
  });

  it('gives a job back when its claimant lets the lease expire', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = home.openStore({ clock: () => now });
    const run = await store.createRun(newRun());
    const job = await store.claimJob('sup-a', 5_000);
    expect(job?.run_id).toBe(run.id);
    expect(await store.claimJob('sup-b', 5_000)).toBeUndefined();
    now += 6_000;
    const reclaimed = await store.claimJob('sup-b', 5_000);
    expect(reclaimed).toMatchObject({ id: job?.id, lease_owner: 'sup-b' });
  });

  it('does not hand a finished job out again', async () => {
    const store = home.openStore();
    await store.createRun(newRun());
    const job = await store.claimJob('sup-a', 10_000);
    await store.finishJob(job!.id, 'sup-a', 'started');
    expect(await store.claimJob('sup-a', 10_000)).toBeUndefined();
  });

  it('leaves jobs of a run owned by another live supervisor to that supervisor', async () => {
    const store = home.openStore();
    const run = await store.createRun(newRun());
    const start = await store.claimJob('sup-a', 10_000);
    await store.acquireRun({
      runId: run.id, ownerId: 'sup-a', leaseMs: 10_000, fromStatuses: ['pending'], status: 'running', events: [],
    });
    await store.finishJob(start!.id, 'sup-a', 'started');
    await store.enqueueJob('cancel_run', run.id);
    expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
    expect(await store.claimJob('sup-a', 10_000)).toMatchObject({ kind: 'cancel_run' });
  });
});

describe('run ownership', () => {
  it('lets one supervisor take a run, refuses a second, and allows take-over once the lease expires', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = home.openStore({ clock: () => now });
    const run = await store.createRun(newRun());
    const take = (ownerId: string) =>
      store.acquireRun({
        runId: run.id, ownerId, leaseMs: 5_000, fromStatuses: ['pending', 'running'], status: 'running',
        events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_started', step_name: null, data: { by: ownerId } }],
      });
    expect((await take('sup-a'))?.owner_id).toBe('sup-a');
    expect(await take('sup-b')).toBeUndefined();
    now += 6_000;
    expect((await take('sup-b'))?.owner_id).toBe('sup-b');
    // Only the successful acquisitions wrote their events.
    const events = await store.listRunEvents(run.id);
    expect(events.map((e) => e.data.by)).toEqual(['sup-a', 'sup-b']);
  });

  it('takes a run over from a named previous owner without waiting for its lease', async () => {
    const store = home.openStore();
    const run = await store.createRun(newRun());
    await store.acquireRun({ runId: run.id, ownerId: 'dead', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    const taken = await store.acquireRun({
      runId: run.id, ownerId: 'heir', leaseMs: 60_000, fromStatuses: ['running'], status: 'running', previousOwner: 'dead', events: [],
    });
    expect(taken?.owner_id).toBe('heir');
  });

  it('refuses a state change from a supervisor that no longer owns the run, writing nothing', async () => {
    const store = home.openStore();
    const run = await store.createRun(newRun());
    await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    await expect(
      store.transitionRun({
        runId: run.id, ownerId: 'sup-b', status: 'completed',
        events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_completed', step_name: null, data: {} }],
      }),
    ).rejects.toMatchObject({ code: 'RUN_INVALID_STATE' });
    expect((await store.getRun(run.id))?.status).toBe('running');
    expect(await store.listRunEvents(run.id)).toEqual([]);
  });

  it('records completion time, merges metadata and releases the run on a terminal transition', async () => {
    const store = home.openStore();
    const run = await store.createRun(newRun({ metadata: { keep: 1 } }));
    await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    const done = await store.transitionRun({
      runId: run.id, ownerId: 'sup-a', status: 'failed', error: 'boom', metadataPatch: { added: true }, release: true, events: [],
    });
    expect(done).toMatchObject({ status: 'failed', error: 'boom', owner_id: null, metadata: { keep: 1, added: true } });
    expect(done.completed_at).not.toBeNull();
    expect(await store.renewRunLeases('sup-a', 60_000)).toBe(0);
  });
});

describe('supervisor heartbeats', () => {
  it('keeps the freshest beat per supervisor and forgets supervisors silent for a day', async () => {
    const store = home.openStore();
    const beat = (id: string, at: string) => ({
      id, pid: 1, hostname: 'h', started_at: at, heartbeat_at: at, state: 'running' as const,
      concurrency: { limit: 8, perRunLimit: 8, active: 0, queued: 0, runs: 0, perProvider: {} },
    });
    await store.writeHeartbeat(beat('old', '2026-01-01T00:00:00.000Z'));
    await store.writeHeartbeat(beat('live', '2026-01-01T12:00:00.000Z'));
    await store.writeHeartbeat(beat('live', '2026-01-02T06:00:00.000Z'));
    expect((await store.listHeartbeats()).map((h) => [h.id, h.heartbeat_at])).toEqual([['live', '2026-01-02T06:00:00.000Z']]);
  });
});
