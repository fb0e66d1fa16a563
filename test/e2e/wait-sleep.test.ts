import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { writeDeadHeartbeat } from '../supervisor/process/dead-supervisor.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Long waits through the real `cairn serve`: a run whose only pending work is a wait ending more
 * than 30 s away is let go (no scheduler, timer or lease anywhere) with a durable `wake_run` job,
 * and whoever claims that job at the moment wakes it. The 40-s wait is never waited out: the
 * server that wakes it runs 60 s ahead (CAIRN_CLOCK_OFFSET_MS, a test-only clock offset).
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const longNap = `name: long-nap
description: a 40-second wait, then a node
nodes:
  - id: hold
    wait: { duration_ms: 40000 }
  - id: after
    depends_on: [hold]
    bash: echo after
`;

const quick = `name: quick
description: one quick node
nodes:
  - id: only
    bash: echo quick
`;

const finished = ['completed', 'failed', 'cancelled'];

/** The run asleep: running, owned by nobody, with an open wake_run job; and the supervisor with pid `pid` drives no run. */
async function asleep(store: Store, runId: string, pid: number): Promise<boolean> {
  const run = await store.getRun(runId);
  const wake = (await store.listRunJobs(runId)).find((j) => j.kind === 'wake_run' && j.status !== 'done');
  const beat = (await store.listHeartbeats()).find((b) => b.pid === pid && b.state === 'running');
  return run?.status === 'running' && run.owner_id === null && wake !== undefined && beat?.concurrency.runs === 0;
}

async function finishedRun(server: RunningServer, runId: string) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return finished.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to finish`, timeoutMs: 45_000 });
}

it('a 40-s wait lets its run go; another run takes the only slot; after kill -9 and a dead claimant of the wake job, a new supervisor wakes it as the same attempt', async () => {
  const store = home.openStore();
  let server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '1' });
  await writeHomeWorkflow(home, 'long-nap', longNap);
  await writeHomeWorkflow(home, 'quick', quick);
  const { runId } = await startRun(server.url, 'long-nap');
  const firstPid = await server.pid('supervisor');
  await waitFor(() => asleep(store, runId, firstPid), { what: 'the run to sleep, its supervisor driving nothing' });
  const wake = (await store.listRunJobs(runId)).find((j) => j.kind === 'wake_run')!;
  const suspended = (await getRun(server.url, runId)).events.find((e) => e.step_name === 'hold' && e.event_type === 'node_suspended')!;
  expect(wake.not_before).toBe(suspended.data.wake_at);
  expect((await getRun(server.url, runId)).run.status).toBe('running');

  // The only slot is free for another run meanwhile.
  const other = await startRun(server.url, 'quick');
  expect((await finishedRun(server, other.runId)).run.status).toBe('completed');

  // kill -9 while it sleeps: the restarted supervisor does not take the sleeping run over.
  process.kill(firstPid, 'SIGKILL');
  const secondPid = await waitFor(async () => {
    const pid = await server.pid('supervisor').catch(() => firstPid);
    return pid !== firstPid ? pid : undefined;
  }, { what: 'the launcher to restart the supervisor' });
  // Its start (take-over included) is over once it has claimed and run a new run.
  const third = await startRun(server.url, 'quick');
  expect((await finishedRun(server, third.runId)).run.status).toBe('completed');
  // Its heartbeat says what it drives a beat after the quick run ended: await it, not a moment.
  await waitFor(() => asleep(store, runId, secondPid), { what: 'the restarted supervisor to leave the sleeping run asleep', timeoutMs: 10_000 });
  await server.stop();

  // A supervisor claims the wake job at its moment and dies (kill -9) before waking the run.
  const ahead = home.openStore({ clock: () => Date.now() + 60_000 });
  await writeDeadHeartbeat(ahead, 'dead-claimant');
  expect(await ahead.claimJob('dead-claimant', 3_600_000)).toMatchObject({ id: wake.id, kind: 'wake_run' });

  server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '1', CAIRN_CLOCK_OFFSET_MS: '60000' });
  const { run, events } = await finishedRun(server, runId);
  expect(run.status).toBe('completed');
  const hold = events.filter((e) => e.step_name === 'hold');
  expect(hold.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_completed']);
  expect(hold[2]!.data.execution.attempt.id).toBe(hold[0]!.data.execution.attempt.id);
  expect(Date.parse(hold[2]!.created_at)).toBeGreaterThanOrEqual(Date.parse(suspended.data.wake_at));
  expect(events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toEqual(['hold', 'after']);
  expect((await store.getJob(wake.id))).toMatchObject({ status: 'done', result: 'woken', attempts: 2 });
});

it('cancels a sleeping run at once: the run ends cancelled, the wait attempt is closed as cancelled, the wake-up dropped', async () => {
  const store = home.openStore();
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'long-nap', longNap);
  const { runId } = await startRun(server.url, 'long-nap');
  await waitFor(async () => asleep(store, runId, await server.pid('supervisor')), { what: 'the run to sleep' });

  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
  expect(res.ok).toBe(true);
  const { run, events } = await finishedRun(server, runId);
  expect(run.status).toBe('cancelled');
  const hold = events.filter((e) => e.step_name === 'hold');
  expect(hold.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_failed']);
  expect(hold[2]!.data.execution.attempt.id).toBe(hold[1]!.data.execution.attempt.id);
  expect(hold[2]!.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'cancelled', error: 'Cancelled by user' });
  expect(events.at(-1)!.event_type).toBe('workflow_cancelled');
  expect(events.some((e) => e.step_name === 'after')).toBe(false);
  const wakes = (await store.listRunJobs(runId)).filter((j) => j.kind === 'wake_run');
  expect(wakes.map((j) => j.status)).toEqual(['done']);
});
