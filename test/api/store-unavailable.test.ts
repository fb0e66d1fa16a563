import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildServer } from '../../src/api/server.js';
import { loadSettings } from '../../src/shared/config.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { holdWriteLock } from '../helpers/write-lock.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('answers 503 with Retry-After while another process holds the database past the wait budget, and writes nothing', async () => {
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: d\nnodes:\n  - id: a\n    bash: "true"\n');
  // A short budget stands in for the default 30 s.
  const store = home.openStore({ busyBudgetMs: 300 });
  const app = await buildServer({ store, settings: loadSettings({ CAIRN_HOME: home.home }) });
  home.defer(() => app.close());
  await store.ping();

  const lock = await holdWriteLock(home);
  const res = await app.inject({ method: 'POST', url: '/api/workflows/plain/run', payload: { message: 'hi' } });
  await lock.release();

  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.json()).toMatchObject({ code: 'STORE_UNAVAILABLE', error: expect.stringMatching(/busy.*Retry later/s) });
  expect(await store.listRuns({ limit: 10 })).toEqual([]);
  // Once the lock is gone, the same request succeeds.
  const again = await app.inject({ method: 'POST', url: '/api/workflows/plain/run', payload: { message: 'hi' } });
  expect(again.statusCode).toBe(200);
});
