import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AcquireRun, TransitionRun } from '../../../src/store/store.js';
import type { Job } from '../../../src/store/schemas/job.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { terminalRunStatuses } from '../../../src/store/schemas/run.js';
import { createRunRow, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeStaleHeartbeat } from './dead-supervisor.js';
import { dyingStore, type StoreCall } from './dying-store.js';
import { startTimedSupervisor } from './timed-supervisor.js';

/**
 * A resumed run that waits for a place of its concurrency key (on_overlap: queue), and the
 * supervisor killed -9 between the commit that ends the run holding the place (which queues the
 * waiting run's `start_run` in the same transaction) and the waiting run's start. Three moments:
 * the job just queued, just claimed, and the run just acquired with no node launched. The next
 * supervisor starts the waiting run exactly once and completes it; no node runs twice, and the
 * ended run keeps its success.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const policy = { concurrency: { key: 'k', limit: 1, on_overlap: 'queue' } };

/** B: a check that fails until the `ok` mark exists, then one more node; each run of a node is counted. */
const waiterYaml = (marks: string) => `name: keyed
description: a check that fails at first, then one more node
nodes:
  - id: check
    bash: "echo x >> '${marks}/b-check.ran'; test -e '${marks}/ok'"
  - id: after
    depends_on: [check]
    bash: "echo x >> '${marks}/b-after.ran'; echo after"
`;

/** A: one node held until the test lets it go. */
const holderYaml = (marks: string) => `name: keyed
description: one node that holds the place until released
nodes:
  - id: hold
    bash: "echo x >> '${marks}/a-hold.ran'; while [ ! -e '${marks}/go' ]; do sleep 0.02; done; echo held"
`;

type Moment = (call: StoreCall, ids: { holder: string; waiter: string }) => boolean;

/** Each moment, and what the dead supervisor left of B there: its status and its new start job's. */
const moments: [string, Moment, { run: Run['status']; job: Job['status'] }][] = [
  [
    'its start_run just queued by the end of the holder',
    ({ method, args }, { holder }) =>
      method === 'transitionRun' && (args[0] as TransitionRun).runId === holder && terminalRunStatuses.includes((args[0] as TransitionRun).status as Run['status']),
    { run: 'pending', job: 'queued' },
  ],
  [
    'its start_run just claimed',
    ({ method, result }, { waiter }) => method === 'claimJob' && (result as Job | undefined)?.run_id === waiter,
    { run: 'pending', job: 'claimed' },
  ],
  [
    'the run just acquired, no node launched',
    ({ method, args, result }, { waiter }) => method === 'acquireRun' && (args[0] as AcquireRun).runId === waiter && result !== undefined,
    { run: 'running', job: 'claimed' },
  ],
];

const linesOf = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

it.each(moments)('killed -9 with the waiting resumed run at "%s": the next supervisor starts it once and completes it', async (_moment, diesHere, left) => {
  const marks = join(home.home, 'marks');
  await mkdir(marks, { recursive: true });
  const seed = home.openStore();
  const ids = { holder: '', waiter: '' };
  const dying = dyingStore(home.openStore(), (call) => ids.holder !== '' && diesHere(call, ids));
  await startTimedSupervisor(home, { id: 'sup-dies', store: dying.store });
  home.defer(() => dying.revive());

  // B fails on its check; A then takes the key's one place; B's resume waits for it.
  const waiter = await createRunRow(seed, waiterYaml(marks), { metadata: policy });
  await waitFor(async () => (await seed.getRun(waiter.id))?.status === 'failed', { what: 'B to fail' });
  await writeFile(join(marks, 'ok'), '');
  const holder = await createRunRow(seed, holderYaml(marks), { metadata: policy });
  await waitFor(() => linesOf(join(marks, 'a-hold.ran')) === 1, { what: 'A to hold the place' });
  const resume = await seed.requestRunContinuation({ runId: waiter.id, kind: 'resume_run', payload: {}, fromStatuses: ['failed'] });
  if (!resume.queued) throw new Error('the resume was not queued');
  await waitFor(async () => (await seed.getJob(resume.job.id))?.status === 'done', { what: 'the resume job' });
  expect((await seed.getRun(waiter.id))!.status).toBe('pending');

  // A ends; the supervisor dies at the chosen moment after that commit.
  ids.holder = holder.id;
  ids.waiter = waiter.id;
  await writeFile(join(marks, 'go'), '');
  await dying.died;
  await writeStaleHeartbeat(seed, 'sup-dies');
  const holderEvents = await seed.listRunEvents(holder.id);
  expect((await seed.getRun(holder.id))!.status).toBe('completed');
  expect(linesOf(join(marks, 'b-after.ran'))).toBe(0);
  const restart = (await seed.listRunJobs(waiter.id)).filter((j) => j.kind === 'start_run').at(-1)!;
  expect({ run: (await seed.getRun(waiter.id))!.status, job: restart.status }).toEqual(left);
  expect((await seed.listRunEvents(waiter.id)).filter((e) => e.event_type === 'node_started' && e.step_name === 'after')).toEqual([]);

  const next = await startSupervisor(home, { id: 'sup-next' });
  const done = await next.waitForStatus(waiter.id, terminalRunStatuses);
  expect(done.status).toBe('completed');
  expect(done.metadata.concurrency).toEqual(policy.concurrency);

  // B: its check ran twice (the failure, then once after the resume), its last node once.
  expect(linesOf(join(marks, 'b-check.ran'))).toBe(2);
  expect(linesOf(join(marks, 'b-after.ran'))).toBe(1);
  const events = await seed.listRunEvents(waiter.id);
  const count = (type: string, step?: string) => events.filter((e) => e.event_type === type && (step === undefined || e.step_name === step)).length;
  expect([count('workflow_started'), count('workflow_resumed'), count('workflow_completed')]).toEqual([1, 1, 1]);
  expect([count('node_started', 'after'), count('node_completed', 'after'), count('node_completed', 'check')]).toEqual([1, 1, 1]);
  // Its two start jobs (the first start, the one A's end queued) are done, and no other was queued.
  const starts = (await seed.listRunJobs(waiter.id)).filter((j) => j.kind === 'start_run');
  expect(starts.map((j) => j.status)).toEqual(['done', 'done']);

  // A keeps its success: nothing was added to its log, its node never ran again.
  expect((await seed.getRun(holder.id))!.status).toBe('completed');
  expect(await seed.listRunEvents(holder.id)).toEqual(holderEvents);
  expect(linesOf(join(marks, 'a-hold.ran'))).toBe(1);
});
