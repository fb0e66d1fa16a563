import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';
import { silentLogger } from '../../../src/shared/log.js';
import { ScheduleLoop } from '../../../src/supervisor/process/schedule-loop.js';
import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';

let home: TempHome;
let t: TestApp;
let clock: () => number;
beforeEach(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(home, 'review', 'name: review\ndescription: r\ninputs:\n  depth: { default: "1" }\nnodes:\n  - id: a\n    bash: "true"\n');
  // The API and its store on one clock that moves a second each time it is read.
  let now = Date.parse('2026-06-01T12:00:00Z');
  clock = () => (now += 1_000);
  t = await makeTestApp(home, { clock, store: home.openStore({ clock }) });
});
afterEach(async () => {
  await home.close();
});

const create = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/schedules', payload });
const nightly = { name: 'nightly', workflow: 'review', cron: '30 2 * * *', timezone: 'Europe/Berlin', inputs: { depth: '3' } };

describe('/api/schedules', () => {
  it('creates a schedule and shows its next 5 due times, lists, pauses, resumes and deletes it', async () => {
    const res = await create(nightly);
    expect(res.statusCode).toBe(201);
    const made = res.json();
    expect(made).toMatchObject({ name: 'nightly', workflow_name: 'review', overlap: 'skip', catch_up_ms: 3_600_000, paused: false, origin: 'api' });
    expect(made.next_fire_times).toEqual(['2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05', '2026-06-06'].map((d) => `${d}T00:30:00.000Z`));
    expect((await t.app.inject({ url: '/api/schedules' })).json().schedules.map((s: { name: string }) => s.name)).toEqual(['nightly']);
    const detail = (await t.app.inject({ url: '/api/schedules/nightly' })).json();
    expect(detail).toMatchObject({ id: made.id, fires: [] });
    const paused = (await t.app.inject({ method: 'POST', url: `/api/schedules/${made.id}/pause` })).json();
    expect(paused).toMatchObject({ paused: true, next_fire_times: [] });
    expect((await t.app.inject({ method: 'POST', url: '/api/schedules/nightly/resume' })).json()).toMatchObject({ paused: false });
    expect((await t.app.inject({ method: 'DELETE', url: '/api/schedules/nightly' })).json()).toEqual({ deleted: true, id: made.id });
    expect((await t.app.inject({ url: '/api/schedules/nightly' })).statusCode).toBe(404);
  });

  it('previews the next 5 due times of an expression and zone before a schedule exists, and says why one cannot be used', async () => {
    const preview = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/schedules/preview', payload });
    const good = await preview({ cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    expect(good.statusCode).toBe(200);
    // The same times creating the schedule gives.
    expect(good.json()).toEqual({ next_fire_times: ['2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05', '2026-06-06'].map((d) => `${d}T00:30:00.000Z`), problem: null });
    // What cannot be used answers 200 with creation's own words (a form asks as the user types).
    const created = await create({ ...nightly, cron: '0 25 * * *' });
    expect((await preview({ cron: '0 25 * * *', timezone: 'Europe/Berlin' })).json()).toEqual({ next_fire_times: [], problem: created.json().error });
    expect((await preview({ cron: '0 3 * * *', timezone: 'Europe/Atlantis' })).json().problem).toMatch(/timezone 'Europe\/Atlantis' is not an IANA time zone name/);
    expect((await preview({ cron: '  ' })).json()).toEqual({ next_fire_times: [], problem: expect.stringMatching(/^cron is empty/) });
    // The zone defaults to UTC, as for a new schedule; a body that is not the preview's is a 400.
    expect((await preview({ cron: '0 3 * * *' })).json().next_fire_times[0]).toBe('2026-06-02T03:00:00.000Z');
    expect((await preview({ cron: '0 3 * * *', name: 'x' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/schedules' })).json().schedules).toEqual([]);
  });

  it('refuses a bad cron expression, time zone, catch-up, workflow, input, codebase or name with a 4xx naming it, and stores nothing', async () => {
    const refusals: [Record<string, unknown>, number, RegExp][] = [
      [{ ...nightly, cron: '0 25 * * *' }, 400, /cron '0 25 \* \* \*' is not a cron expression/],
      [{ ...nightly, timezone: 'Europe/Atlantis' }, 400, /timezone 'Europe\/Atlantis' is not an IANA time zone name/],
      [{ ...nightly, catchUp: 'a while' }, 400, /catchUp 'a while' is not a duration/],
      [{ ...nightly, overlap: 'queue' }, 400, /overlap/],
      [{ ...nightly, workflow: 'nope' }, 404, /nope/],
      [{ ...nightly, inputs: { deep: '1' } }, 400, /Unknown input 'deep'/],
      [{ ...nightly, codebaseId: 'acme/none' }, 400, /Unknown codebaseId 'acme\/none'/],
      [{ ...nightly, name: 'has#hash' }, 400, /name/],
    ];
    for (const [payload, status, text] of refusals) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().error).toMatch(text);
    }
    expect((await create(nightly)).statusCode).toBe(201);
    const again = await create(nightly);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'SCHEDULE_EXISTS' });
    expect(await t.store.listSchedules()).toHaveLength(1);
    expect((await t.app.inject({ method: 'POST', url: '/api/schedules/ghost/pause' })).statusCode).toBe(404);
  });

  it('runs now: a run is queued for the schedule, and a second run now while it is open is skipped (overlap skip)', async () => {
    await create(nightly);
    const first = (await t.app.inject({ method: 'POST', url: '/api/schedules/nightly/run-now' })).json();
    expect(first).toMatchObject({ fire: { outcome: 'started', manual: true }, cancelled: [] });
    const run = await t.store.getRun(first.runId);
    expect(run).toMatchObject({ workflow_name: 'review', status: 'pending', inputs: { depth: '3' } });
    expect(run?.metadata).toMatchObject({ schedule: { name: 'nightly', manual: true } });
    const second = (await t.app.inject({ method: 'POST', url: '/api/schedules/nightly/run-now' })).json();
    expect(second).toMatchObject({ fire: { outcome: 'skipped', manual: true }, runId: null });
    expect(second.fire.reason).toMatch(/still open.*overlap: skip/);
  });

  it('refuses to schedule an interactive workflow; one that became interactive after is not started: run-now is refused, a due time is recorded skipped with the reason', async () => {
    await writeHomeWorkflow(home, 'pairing', 'name: pairing\ndescription: p\ninteractive: true\nnodes:\n  - id: a\n    bash: "true"\n');
    const refused = await create({ ...nightly, name: 'pair', workflow: 'pairing', inputs: {} });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe(
      "Cannot schedule: workflow 'pairing' is interactive ('interactive: true'), and a schedule starts runs with no one there to drive them; " +
        "run it yourself (cairn workflow run pairing), or remove 'interactive: true' from its file",
    );

    const made = (await create({ ...nightly, name: 'every-second', cron: '* * * * * *' })).json();
    await writeHomeWorkflow(home, 'review', 'name: review\ndescription: r\ninteractive: true\ninputs:\n  depth: { default: "1" }\nnodes:\n  - id: a\n    bash: "true"\n');
    const runNow = await t.app.inject({ method: 'POST', url: '/api/schedules/every-second/run-now' });
    expect(runNow.statusCode).toBe(400);
    expect(runNow.json().error).toMatch(/^Schedule 'every-second' cannot start a run: workflow 'review' is interactive/);
    const catalog = WorkflowCatalog.forHome(home.home, { threadFile: null });
    const loop = new ScheduleLoop({ store: t.store, clock, log: silentLogger(), lookup: (name, query) => catalog.getAsync(name, query) });
    await loop.pass();
    const fires = await t.store.listScheduleFires(made.id, 100);
    expect(fires.length).toBeGreaterThan(0);
    for (const fire of fires) expect(fire).toMatchObject({ outcome: 'skipped', run_id: null, reason: expect.stringMatching(/^workflow 'review' is interactive/) });
    expect(await t.store.listRuns({ workflowName: 'review', limit: 10 })).toEqual([]);
  });

  it('refuses to delete a schedule a workflow file declares', async () => {
    await t.store.syncDeclaredSchedules('global', [
      { id: 'd1', name: 'review#0', workflowName: 'review', codebaseId: null, inputs: {}, cron: '0 3 * * *', timezone: 'UTC', overlap: 'skip', catchUpMs: 0 },
    ]);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/schedules/${encodeURIComponent('review#0')}` });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/remove the trigger from the file, or pause the schedule/);
  });
});
