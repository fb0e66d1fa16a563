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
 * orphans (docs/architecture.md, "Shutdown and take-over"). The global limit is 1, and the dead
 * supervisor's one place was held by an orphaned attempt of run X: a process still running, slow
 * to stop. Whatever the next supervisor starts next (another run it takes over, or the run
 * waiting for X's concurrency place when X cannot be taken over and is failed) must not run while
 * that orphan is alive.
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

/**
 * X's attempt of node `slow`, in flight when its supervisor died: a process group that takes 1.5 s
 * to stop on SIGTERM (less than the kill grace), longer than the next supervisor takes to launch a
 * node if nothing holds it; its start and its end are logged.
 */
async function startOrphan(store: Store, x: Run, log: string) {
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
  await store.appendEvents([{ ...nodeEventOf(started, { pid: orphan.pid! }), conversation_id: x.conversation_id }]);
  return orphan;
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

  await startOrphan(seed, x, log);
  await writeDeadHeartbeat(seed, 'dead-sup');

  // Y is older: it is taken over first.
  const sup = await startSupervisor(home, { limit: 1 });
  for (const run of [y, x]) expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['orphan-start', 'orphan-end', 'y-after']);
});

it('a run that cannot be taken over (an unreadable definition) is failed only once its orphan is gone, so the run waiting for its place never runs beside it', async () => {
  const log = join(home.home, 'places.log');
  const seed = home.openStore();
  const concurrency = { key: 'k', limit: 1, on_overlap: 'queue' as const };
  // X's stored definition no longer builds (a hand-edited row with a cycle); W waits for X's place.
  const x = await seed.createRun({
    id: randomUUID(), workflowName: 'keyed', conversationId: `conv-${randomUUID()}`, workingPath: null, userMessage: '', inputs: {},
    metadata: { concurrency },
    definition: { name: 'keyed', description: 'edited', nodes: [{ id: 'slow', bash: 'true', depends_on: ['b'] }, { id: 'b', bash: 'true', depends_on: ['slow'] }] } as never,
  });
  const w = await createRunRow(seed, `name: keyed
description: one node, checked against the orphan
nodes:
  - id: work
    bash: "if grep -q orphan-end '${log}' 2>/dev/null; then echo w-after >> '${log}'; else echo w-beside >> '${log}'; fi"
`, { metadata: { concurrency } });
  expect((await seed.getRun(w.id))!.metadata.concurrency).toMatchObject({ waiting_for: [x.id] });
  await acquireAs(seed, 'dead-sup', x);
  await startOrphan(seed, x, log);
  await writeDeadHeartbeat(seed, 'dead-sup');

  const sup = await startSupervisor(home, { limit: 1 });
  const failed = await sup.waitForStatus(x.id, ['failed']);
  expect(failed.error).toMatch(/stored definition is not a valid workflow/);
  expect((await sup.waitForStatus(w.id, ['completed', 'failed'])).status).toBe('completed');
  expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(['orphan-start', 'orphan-end', 'w-after']);
});
