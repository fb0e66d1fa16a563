import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { createRunRow } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startTimedSupervisor } from './timed-supervisor.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const oneNode = 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: echo a\n';
/** The supervisors' lease, renewed every 200 ms while they drive a run. */
const leaseMs = 1_000;
/** The seeded run's lease: long enough to outlast the supervisors' start, so only renewal decides. */
const seededLeaseMs = 3_000;

/**
 * A running run owned by `ownerId` that nothing drives: the state a supervisor is left in when
 * a run's scheduler ends without committing (or could not be built, and failing the run failed too).
 */
async function seedUndrivenRun(store: Store, ownerId: string) {
  const run = await createRunRow(store, oneNode);
  const start = await store.claimJob('seeder', 60_000);
  await store.acquireRun({ runId: run.id, ownerId, leaseMs: seededLeaseMs, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.finishJob(start!.id, 'seeder', 'started');
  return run;
}

function waitForEnd(store: Store, runId: string) {
  return waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 20_000 });
}

it('takes over, once its lease has run out, a run the supervisor owns but no longer drives', async () => {
  const seed = home.openStore();
  const run = await seedUndrivenRun(seed, 'sup-a');
  await startTimedSupervisor(home, { id: 'sup-a', timing: { runLeaseMs: leaseMs, heartbeatMs: 200 } });
  expect((await waitForEnd(seed, run.id)).status).toBe('completed');
});

it("lets another supervisor take over a live supervisor's run that it no longer drives", async () => {
  const seed = home.openStore();
  const run = await seedUndrivenRun(seed, 'sup-a');
  await startTimedSupervisor(home, { id: 'sup-a', timing: { runLeaseMs: leaseMs, heartbeatMs: 200 } });
  await startTimedSupervisor(home, { id: 'sup-b', timing: { runLeaseMs: leaseMs, heartbeatMs: 200 } });
  expect((await waitForEnd(seed, run.id)).status).toBe('completed');
  const started = (await seed.listRunEvents(run.id)).filter((e) => e.event_type === 'node_started');
  expect(started).toHaveLength(1);
});
