import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue 10: the heartbeat (what `/api/health` reports) counts nodes held back by a run's own
 * limit as queued, not only attempts waiting for the global limiter. Real supervisor and pool.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('supervisor heartbeat', () => {
  it('reports ready nodes waiting for a per-run slot as queued', async () => {
    const sup = await startSupervisor(home, { limit: 1 });
    const run = await sup.createRun(`name: wide
description: three independent sleepers under a limit of one
nodes:
  - id: a
    bash: sleep 30
  - id: b
    bash: sleep 30
  - id: c
    bash: sleep 30
`);
    // One node runs; the other two wait in the run's ready queue, not at the global limiter.
    const beat = await waitFor(
      async () => {
        const mine = (await sup.store.listHeartbeats()).find((b) => b.concurrency.active === 1 && b.concurrency.runs === 1);
        return mine && mine.concurrency.queued === 2 ? mine : undefined;
      },
      { what: 'a heartbeat with 1 active attempt and 2 queued nodes', timeoutMs: 30_000 },
    );
    expect(beat.concurrency).toMatchObject({ limit: 1, perRunLimit: 1, active: 1, queued: 2 });
    await sup.store.enqueueJob('cancel_run', run.id);
    await sup.waitForStatus(run.id, ['cancelled']);
  });
});
