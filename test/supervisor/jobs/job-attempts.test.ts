import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRunRow } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeDeadHeartbeat } from '../process/dead-supervisor.js';
import { capturingLogger, startTimedSupervisor } from '../process/timed-supervisor.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const oneNode = 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: echo a\n';
const ERROR = 50;
const WARN = 40;

it('gives up a job whose supervisor died each of the five times it held it, and fails its run with the reason', async () => {
  const seed = home.openStore();
  const run = await createRunRow(seed, oneNode);
  // A start job that (say) crashes whoever runs it: five supervisors claimed it and died.
  for (let i = 1; i <= 5; i++) {
    expect((await seed.claimJob(`dead-${i}`, 3_600_000))?.attempts).toBe(i);
    if (i < 5) await seed.requeueJobsOf([`dead-${i}`]);
  }
  await writeDeadHeartbeat(seed, 'dead-5');

  const { log, lines } = capturingLogger();
  await startTimedSupervisor(home, { id: 'sup-sixth', log });
  const [job] = await waitFor(async () => {
    const jobs = await seed.listRunJobs(run.id);
    return jobs[0]?.status === 'done' ? jobs : undefined;
  }, { what: 'the start job to be given up' });
  expect(job!.attempts).toBe(6);
  expect(job!.result).toMatch(/^failed: start_run job \d+ for run .+ was given up: claimed 5 times and never finished/);
  expect(job!.result).toMatch(/Look for job \d+ in the supervisor log, fix the cause, then make the request again\.$/);
  expect(lines.find((l) => l.msg === 'job.given_up')).toMatchObject({ level: ERROR, jobId: job!.id, attempts: 6 });

  // The run says why it never started, and nothing of it ran.
  const failed = await seed.getRun(run.id);
  expect(failed).toMatchObject({ status: 'failed', owner_id: null });
  expect(failed!.error).toMatch(/^Run could not be started: claimed 5 times and never finished/);
  expect((await seed.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['workflow_failed']);
});

it('tries a failing job again after a delay, then gives it up with the last error', async () => {
  const seed = home.openStore();
  // A running run this supervisor owns under a live lease but does not drive: a cancel of it
  // cannot be carried out until the lease lapses, so each attempt fails.
  const run = await createRunRow(seed, oneNode);
  const start = await seed.claimJob('seeder', 60_000);
  await seed.acquireRun({ runId: run.id, ownerId: 'sup-busy', leaseMs: 3_600_000, fromStatuses: ['pending'], status: 'running', events: [] });
  await seed.finishJob(start!.id, 'seeder', 'started');

  const { log, lines } = capturingLogger();
  await startTimedSupervisor(home, { id: 'sup-busy', log, timing: { jobs: { maxAttempts: 2, firstRetryMs: 50 } } });
  const cancel = await seed.enqueueJob('cancel_run', run.id);
  const done = await waitFor(async () => {
    const job = (await seed.listRunJobs(run.id)).find((j) => j.id === cancel.id);
    return job?.status === 'done' ? job : undefined;
  }, { what: 'the cancel job to be given up' });

  expect(done).toMatchObject({ attempts: 2, last_error: expect.stringMatching(/driven by another supervisor/) });
  expect(done.result).toMatch(/was given up: failed 2 times; last error: Run .+ is driven by another supervisor, or this one is stopping/);
  const mine = lines.filter((l) => l.jobId === cancel.id && l.level >= WARN).map((l) => [l.msg, l.level]);
  expect(mine).toEqual([['job.attempt_failed', WARN], ['job.given_up', ERROR]]);
});
