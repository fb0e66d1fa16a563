import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildExecutionRecord, nodeEventOf, notApplicableSpend, startedState } from '../../../src/records/index.js';
import type { Store } from '../../../src/store/store.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { createRunRow, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeDeadHeartbeat } from './dead-supervisor.js';

/**
 * The places a supervisor killed -9 held come free only once the take-over has killed its
 * orphans. Here the global limit is 1: the dead supervisor's one place was held by an orphaned
 * attempt of run X (a process still running, slow to stop); run Y, owned by it too, had nothing
 * in flight. The next supervisor takes Y over first (it is older), then X. Y's node must not run
 * while X's orphan is alive: it starts only after the take-over has seen the orphan gone.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** Claims the run's start job and acquires the run as `owner` would have before dying. */
async function acquireAs(store: Store, owner: string, run: Run): Promise<void> {
  const job = await store.claimJob(owner, 60_000);
  expect(job?.run_id).toBe(run.id);
  await store.acquireRun({ runId: run.id, ownerId: owner, leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.finishJob(job!.id, owner, 'started');
}

it('a run taken over launches nothing while the orphan of another run taken over in the same pass is alive', async () => {
  const log = join(home.home, 'places.log');
  const seed = home.openStore();
  // Y: one node that records whether the orphan had ended when it started.
  const y = await createRunRow(seed, `name: y
description: one node, checked against the orphan
nodes:
  - id: work
    bash: "if grep -q orphan-end '${log}' 2>/dev/null; then echo y-after >> '${log}'; else echo y-beside >> '${log}'; fi"
`);
  const x = await createRunRow(seed, 'name: x\ndescription: one node, quick when run again\nnodes:\n  - id: slow\n    bash: echo again\n');
  await acquireAs(seed, 'dead-sup', y);
  await acquireAs(seed, 'dead-sup', x);

  // X's attempt, in flight when its supervisor died: a process group that takes 1.5 s to stop (less
  // than the kill grace), longer than the next supervisor takes to launch Y's node if nothing holds it.
  const orphan = spawn('sh', ['-c', `trap 'sleep 1.5; echo orphan-end >> "${log}"; exit 0' TERM; echo orphan-start >> '${log}'; while :; do sleep 0.02; done`], {
    detached: true,
    stdio: 'ignore',
  });
  home.defer(() => orphan.kill('SIGKILL'));
  await waitFor(() => existsSync(log), { what: 'the orphan to start' });
  const startedAt = new Date().toISOString();
  const started = buildExecutionRecord({
    runId: x.id, path: 'slow', node: { id: 'slow', kind: 'exec', runtime: 'sh' }, invocation: { id: randomUUID(), startedAt, loopPath: [] },
    attempt: { id: randomUUID(), startedAt }, timing: { startedAt }, spend: notApplicableSpend(), lifecycle: startedState(),
  });
  await seed.appendEvents([{ ...nodeEventOf(started, { pid: orphan.pid! }), conversation_id: x.conversation_id }]);
  await writeDeadHeartbeat(seed, 'dead-sup');

  const sup = await startSupervisor(home, { limit: 1 });
  for (const run of [y, x]) expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['orphan-start', 'orphan-end', 'y-after']);
});
