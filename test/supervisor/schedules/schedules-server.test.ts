import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/log.js';
import type { ScheduleFire } from '../../../src/store/schemas/schedule.js';
import type { Store } from '../../../src/store/store.js';
import { ScheduleLoop } from '../../../src/supervisor/process/schedule-loop.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import { startServer, type RunningServer } from '../../helpers/server.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

// The home (and its store) of the describe block running: one home and server shared by the
// tests that create their own schedule of their own workflow, a fresh home for the restart test.
let home: TempHome;
let store: Store;
async function openHome(): Promise<void> {
  home = await makeTempHome();
  store = home.openStore();
}

/** A workflow of one quick node, named for the test that schedules it. */
const writeTick = (name: string) =>
  writeHomeWorkflow(home, name, `name: ${name}\ndescription: one quick node\nnodes:\n  - id: a\n    bash: echo tick\n`);

async function createSchedule(server: RunningServer, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await fetch(`${server.url}/api/schedules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string };
}

const firesOf = async (id: string): Promise<ScheduleFire[]> => (await store.listScheduleFires(id, 1_000)).reverse();
const started = (fires: readonly ScheduleFire[]) => fires.filter((f) => f.outcome === 'started');

/** Every run of the schedule is one due time's, and no due time has two. */
async function expectOneRunPerDueTime(scheduleId: string, workflowName: string): Promise<void> {
  const runs = (await store.listRuns({ workflowName, limit: 1_000 })).filter((r) => (r.metadata.schedule as { id?: string } | undefined)?.id === scheduleId);
  const dueTimes = runs.map((r) => (r.metadata.schedule as { due_at: string }).due_at);
  expect(new Set(dueTimes).size).toBe(runs.length);
  expect(runs.length).toBe(started(await firesOf(scheduleId)).length);
}

describe('schedules on the real server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    await openHome();
    server = await startServer(home);
  });
  afterAll(() => home.close());

  it('a schedule every second starts runs that complete, one per due time', async () => {
    await writeTick('tick-every');
    const schedule = await createSchedule(server, { name: 'every-second', workflow: 'tick-every', cron: '* * * * * *', overlap: 'allow_all' });
    const done = await waitFor(async () => {
      const runs = await store.listRuns({ workflowName: 'tick-every', status: 'completed', limit: 100 });
      return runs.length >= 3 ? runs : undefined;
    }, { what: 'three completed scheduled runs' });
    expect(done.every((r) => (r.metadata.schedule as { name: string }).name === 'every-second')).toBe(true);
    await fetch(`${server.url}/api/schedules/every-second/pause`, { method: 'POST' });
    await expectOneRunPerDueTime(schedule.id, 'tick-every');
  });

  it('skips due times while its run is still open (overlap skip), and starts again once it ended', async () => {
    const flag = join(home.home, 'release');
    await writeHomeWorkflow(home, 'slow', `name: slow\ndescription: waits for a file\nnodes:\n  - id: a\n    bash: 'while [ ! -e "${flag}" ]; do sleep 0.05; done'\n`);
    const schedule = await createSchedule(server, { name: 'slow-skip', workflow: 'slow', cron: '* * * * * *' });
    const skipped = await waitFor(async () => {
      const fires = await firesOf(schedule.id);
      return fires.filter((f) => f.outcome === 'skipped').length >= 2 ? fires : undefined;
    }, { what: 'two skipped fires' });
    expect(started(skipped)).toHaveLength(1);
    expect(await store.listRuns({ workflowName: 'slow', limit: 10 })).toHaveLength(1);
    await writeFile(flag, '');
    await waitFor(async () => started(await firesOf(schedule.id)).length >= 2, { what: 'a run started after the first ended' });
    const runs = await store.listRuns({ workflowName: 'slow', limit: 10 });
    expect(runs.filter((r) => r.status !== 'completed').length).toBeLessThanOrEqual(1);
    // The server goes on to the next test: it stops starting this schedule's runs.
    await fetch(`${server.url}/api/schedules/slow-skip/pause`, { method: 'POST' });
  });

  it("a second fire loop on its own connection racing the server's on the same due times admits one run each", async () => {
    await writeTick('tick-raced');
    const catalog = WorkflowCatalog.forHome(home.home, { threadFile: null });
    const rival = new ScheduleLoop({ store: home.openStore(), clock: Date.now, log: silentLogger(), lookup: (name, q) => catalog.getAsync(name, q) });
    rival.start();
    home.defer(() => rival.stop());
    const schedule = await createSchedule(server, { name: 'raced', workflow: 'tick-raced', cron: '* * * * * *', overlap: 'allow_all' });
    await waitFor(async () => started(await firesOf(schedule.id)).length >= 5, { what: 'five fires' });
    await rival.stop();
    await fetch(`${server.url}/api/schedules/raced/pause`, { method: 'POST' });
    await expectOneRunPerDueTime(schedule.id, 'tick-raced');
  });
});

describe('schedules across a restart of the server (own home: the test stops the server and starts it with a clock ahead)', () => {
  beforeEach(openHome);
  afterEach(() => home.close());

  it('after a restart between due times, runs each due time inside the catch-up window once and records older ones missed', async () => {
    await writeTick('tick');
    const first = await startServer(home);
    const schedule = await createSchedule(first, { name: 'restarted', workflow: 'tick', cron: '* * * * * *', overlap: 'allow_all', catchUp: '5s' });
    await waitFor(async () => started(await firesOf(schedule.id)).length >= 2, { what: 'two fires before the restart' });
    await first.stop();
    const beforeRestart = (await firesOf(schedule.id)).length;
    // Comes back 20 s later by its clock (the test knob moves the new processes' clock ahead).
    await startServer(home, { CAIRN_CLOCK_OFFSET_MS: '20000' });
    const fires = await waitFor(async () => {
      const all = await firesOf(schedule.id);
      return started(all.slice(beforeRestart)).length >= 6 ? all : undefined;
    }, { what: 'fires after the restart' });
    // Every second from the first fire on was decided exactly once: no gap, no repeat.
    const times = fires.map((f) => Date.parse(f.due_at));
    times.slice(1).forEach((t, i) => expect(t - times[i]!).toBe(1_000));
    // In the downtime: the older due times missed, then the ones inside the 5-s window run.
    const gap = fires.slice(beforeRestart).map((f) => f.outcome);
    const firstStarted = gap.indexOf('started');
    expect(gap.slice(0, firstStarted).every((o) => o === 'missed')).toBe(true);
    expect(firstStarted).toBeGreaterThanOrEqual(10);
    expect(gap.slice(firstStarted).every((o) => o === 'started')).toBe(true);
    await expectOneRunPerDueTime(schedule.id, 'tick');
  });
});
