import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { moveRun, seedRun } from './fixtures.js';

/**
 * POST …/resume of a failed run whose workflow's `on_overlap: refuse` policy has no place free:
 * 409 with the text a new start gets, nothing queued, the run as it was. No supervisor runs here.
 */

let home: TempHome;
let api: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  api = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

it('answers 409 CONCURRENCY_LIMIT_REACHED naming the run that holds the place, and queues nothing', async () => {
  const metadata = { concurrency: { key: 'pr-7', limit: 1, on_overlap: 'refuse' as const } };
  const failed = await moveRun(api.writer, await moveRun(api.writer, await seedRun(api.store, { metadata }), 'running'), 'failed');
  const holder = await seedRun(api.store, { metadata });
  const before = await api.store.getRun(failed.id);

  const res = await api.app.inject({ method: 'POST', url: `/api/workflows/runs/${failed.id}/resume` });
  expect(res.statusCode).toBe(409);
  expect(res.json()).toEqual({
    code: 'CONCURRENCY_LIMIT_REACHED',
    error:
      `Workflow '${failed.workflow_name}' allows 1 run at a time for concurrency key "pr-7" (on_overlap: refuse), and ${holder.id} holds ` +
      'its one place; resume it again once that run has ended, or cancel it',
  });
  expect(await api.store.getRun(failed.id)).toEqual(before);
  expect((await api.store.listRunJobs(failed.id)).map((j) => j.kind)).toEqual(['start_run']);
});
