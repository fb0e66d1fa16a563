import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRunRow, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeDeadHeartbeat } from './dead-supervisor.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const oneNode = 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: echo a\n';

it('a job held by a supervisor that died is claimed by the next one at once, not when its lease runs out', async () => {
  const seed = home.openStore();
  const run = await createRunRow(seed, oneNode);
  // Killed -9 right after claiming the start job, under a lease that would last an hour.
  const held = await seed.claimJob('dead-sup', 3_600_000);
  expect(held?.run_id).toBe(run.id);
  await writeDeadHeartbeat(seed, 'dead-sup');

  const sup = await startSupervisor(home, { id: 'sup-next' });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const [job] = await seed.listRunJobs(run.id);
  expect(job).toMatchObject({ status: 'done', lease_owner: 'sup-next', attempts: 2, result: 'started' });
});
