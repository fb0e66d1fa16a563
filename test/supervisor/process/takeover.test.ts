import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import { buildExecutionRecord, nodeEventOf, notApplicableSpend, startedState } from '../../../src/records/index.js';
import { createRunRow, nodeTimeline, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { waitForRunFile } from '../../helpers/run-files.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const resumable = `name: resumable
description: a slow node that is quick the second time, then one more
nodes:
  - id: slow
    bash: "if [ -e .again ]; then echo second; else touch .again; sleep 30; fi"
  - id: after
    depends_on: [slow]
    bash: echo after
`;

/** A pid that certainly names no live process: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/**
 * The state a supervisor killed with -9 leaves behind: it owned the run (lease still valid), its
 * heartbeat names a process that is gone, and the `slow` node's attempt was recorded as started
 * at `startedAt` in the process group `pid`.
 */
async function seedCrashedRun(pid: number, startedAt: string) {
  const store = home.openStore();
  // The interrupted attempt is a stand-in process; the node's own body is quick.
  const run = await createRunRow(store, resumable.replace('if [ -e .again ]; then echo second; else touch .again; sleep 30; fi', 'echo second'));
  const job = await store.claimJob('dead-sup', 60_000);
  await store.acquireRun({ runId: run.id, ownerId: 'dead-sup', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.finishJob(job!.id, 'dead-sup', 'started');
  const now = new Date().toISOString();
  await store.writeHeartbeat({
    id: 'dead-sup', pid: await deadPid(), hostname: hostname(), started_at: now, heartbeat_at: now, state: 'running',
    concurrency: { limit: 1, perRunLimit: 1, active: 1, queued: 0, runs: 1, perProvider: {} },
  });
  const invocation = { id: randomUUID(), startedAt, loopPath: [] };
  const attempt = { id: randomUUID(), startedAt };
  const started = buildExecutionRecord({
    runId: run.id, path: 'slow', node: { id: 'slow', kind: 'exec', runtime: 'sh' }, invocation, attempt,
    timing: { startedAt }, spend: notApplicableSpend(), lifecycle: startedState(),
  });
  await store.appendEvents([{ ...nodeEventOf(started, { pid }), conversation_id: run.conversation_id }]);
  return { run, invocation, attempt };
}

function sleeper() {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  home.defer(() => child.kill('SIGKILL'));
  return child;
}

it('takes over a run whose supervisor died: kills the orphaned group, closes the attempt, runs the node again', async () => {
  const startedAt = new Date().toISOString();
  const orphan = sleeper();
  const { run, invocation, attempt } = await seedCrashedRun(orphan.pid!, startedAt);

  const sup = await startSupervisor(home);
  const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(done.status).toBe('completed');
  await waitFor(() => !isProcessGroupAlive(orphan.pid!), { what: 'the orphan to be gone' });

  const events = await sup.events(run.id);
  expect(nodeTimeline(events)).toEqual([
    'node_started:slow',
    'node_failed:slow',
    'node_started:slow',
    'node_completed:slow',
    'node_started:after',
    'node_completed:after',
  ]);
  const slow = events.filter((e) => e.step_name === 'slow');
  expect(slow[1]!.data).toMatchObject({ interrupted: true, execution: { attempt: { id: attempt.id }, lifecycle: { failureKind: 'transient' } } });
  expect(slow.map((e) => e.data.execution.invocation.id)).toEqual(Array(4).fill(invocation.id));
  expect(slow[2]!.data.execution.attempt.id).not.toBe(attempt.id);
});

it('does not kill a process group whose id was reused after the attempt was recorded (a reboot)', async () => {
  // The record is an hour old; the process now holding that id started just now.
  const stranger = sleeper();
  const { run } = await seedCrashedRun(stranger.pid!, new Date(Date.now() - 3_600_000).toISOString());

  const sup = await startSupervisor(home);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(isProcessGroupAlive(stranger.pid!)).toBe(true);
  expect(nodeTimeline(await sup.events(run.id)).slice(0, 3)).toEqual(['node_started:slow', 'node_failed:slow', 'node_started:slow']);
});

it('on shutdown without drain interrupts running nodes and leaves the run to the next supervisor, which finishes it', async () => {
  const first = await startSupervisor(home, { id: 'sup-first' });
  const run = await first.createRun(resumable);
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_started'), { what: 'slow to start' });
  await waitForRunFile(home, run, '.again');
  await first.stop({ drain: false });
  const released = await first.store.getRun(run.id);
  expect(released).toMatchObject({ status: 'running', owner_id: null });
  const interrupted = (await first.events(run.id)).find((e) => e.event_type === 'node_failed');
  expect(interrupted?.data).toMatchObject({ interrupted: true });

  const second = await startSupervisor(home, { id: 'sup-second' });
  await second.waitForStatus(run.id, ['completed']);
  const events = await second.events(run.id);
  expect(events.find((e) => e.step_name === 'slow' && e.event_type === 'node_completed')?.data.node_output).toBe('second');
});

it('on shutdown with drain lets running nodes finish, starts nothing new, and the next supervisor continues', async () => {
  const first = await startSupervisor(home, { id: 'sup-first' });
  const gate = `${home.home}/a-may-end`;
  const run = await first.createRun(`name: drained
description: a chain
nodes:
  - id: a
    bash: "while [ ! -e '${gate}' ]; do sleep 0.02; done; echo a"
  - id: b
    depends_on: [a]
    bash: echo b
`);
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_started'), { what: 'a to start' });
  // a is still running when the drain begins; it may end once the supervisor says it is draining.
  const stopped = first.stop({ drain: true });
  await waitFor(async () => (await first.store.listHeartbeats()).some((b) => b.id === 'sup-first' && b.state === 'draining'), {
    what: 'the supervisor to be draining',
  });
  await writeFile(gate, '');
  await stopped;
  expect(nodeTimeline(await first.events(run.id))).toEqual(['node_started:a', 'node_completed:a']);
  expect(await first.store.getRun(run.id)).toMatchObject({ status: 'running', owner_id: null });

  const second = await startSupervisor(home, { id: 'sup-second' });
  await second.waitForStatus(run.id, ['completed']);
  expect(nodeTimeline(await second.events(run.id))).toEqual([
    'node_started:a', 'node_completed:a', 'node_started:b', 'node_completed:b',
  ]);
});
