import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Run } from '../../src/store/schemas/run.js';
import type { Store } from '../../src/store/store.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { moveRun, seedRun, TEST_SUPERVISOR } from './fixtures.js';

/**
 * A run whose cancel or abandon is queued ends cancelled whatever else is asked of it: an
 * approve, a reject or a resume sent meanwhile is refused naming that, never answered "the run
 * continues" or "queued". No supervisor runs here, so the cancel stays queued as long as needed.
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

async function pausedAtGate(writer: Store): Promise<Run> {
  const run = await moveRun(writer, await seedRun(api.store), 'running');
  return writer.transitionRun({
    runId: run.id, ownerId: TEST_SUPERVISOR, status: 'paused', release: true, events: [],
    metadataPatch: { approval: { type: 'approval', nodeId: 'review', message: 'ok?' } },
  });
}

const post = (url: string) => api.app.inject({ method: 'POST', url });

it.each(['approve', 'reject'] as const)('refuses to %s a paused run once its cancel is queued, naming the cancel', async (verb) => {
  const run = await pausedAtGate(api.writer);
  expect((await post(`/api/workflows/runs/${run.id}/cancel`)).statusCode).toBe(200);
  const res = await post(`/api/workflows/runs/${run.id}/${verb}`);
  expect(res.statusCode).toBe(400);
  const [cancel] = (await api.store.listRunJobs(run.id)).filter((j) => j.kind === 'cancel_run');
  expect(res.json()).toEqual({
    code: 'RUN_INVALID_STATE',
    error: `Cannot ${verb} workflow in 'paused' status: it is being cancelled (cancel requested at ${cancel!.created_at}) and ends cancelled`,
  });
  // Nothing was queued that would run on after the cancel.
  expect((await api.store.listRunJobs(run.id)).map((j) => j.kind)).toEqual(['start_run', 'cancel_run']);
});

it('still refuses while the cancel is claimed and not carried out yet', async () => {
  const run = await pausedAtGate(api.writer);
  await post(`/api/workflows/runs/${run.id}/cancel`);
  // The supervisor claims the start job and then the cancel, and has not finished the cancel.
  await api.writer.finishJob((await api.writer.claimJob(TEST_SUPERVISOR, 60_000))!.id, TEST_SUPERVISOR, 'done');
  expect((await api.writer.claimJob(TEST_SUPERVISOR, 60_000))?.kind).toBe('cancel_run');
  const res = await post(`/api/workflows/runs/${run.id}/approve`);
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toMatch(/^Cannot approve workflow in 'paused' status: it is being cancelled \(cancel requested at /);
});

it.each(['paused', 'failed'] as const)('refuses to resume a %s run once its abandon is queued, naming the abandon', async (status) => {
  const run = status === 'paused' ? await pausedAtGate(api.writer) : await moveRun(api.writer, await seedRun(api.store), 'failed');
  // What POST …/abandon queues before it waits for the supervisor.
  const abandon = await api.store.enqueueJob('abandon_run', run.id);
  const res = await post(`/api/workflows/runs/${run.id}/resume`);
  expect(res.statusCode).toBe(400);
  expect(res.json()).toEqual({
    code: 'RUN_INVALID_STATE',
    error: `Cannot resume workflow in '${status}' status: it is being cancelled (abandon requested at ${abandon.created_at}) and ends cancelled`,
  });
  expect((await api.store.listRunJobs(run.id)).map((j) => j.kind)).not.toContain('resume_run');
});

it('refuses to resume a paused run once its cancel is queued', async () => {
  const run = await pausedAtGate(api.writer);
  await post(`/api/workflows/runs/${run.id}/cancel`);
  const res = await post(`/api/workflows/runs/${run.id}/resume`);
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toMatch(/^Cannot resume workflow in 'paused' status: it is being cancelled \(cancel requested at /);
});

it('answers an approve as before once the cancel job is done without having ended the run', async () => {
  // A cancel job that is done no longer stands in the way (here: it found the run in another state).
  const run = await pausedAtGate(api.writer);
  const cancel = await api.store.enqueueJob('cancel_run', run.id);
  await api.writer.finishJob((await api.writer.claimJob(TEST_SUPERVISOR, 60_000))!.id, TEST_SUPERVISOR, 'done');
  const claimed = await api.writer.claimJob(TEST_SUPERVISOR, 60_000);
  expect(claimed?.id).toBe(cancel.id);
  await api.writer.finishJob(cancel.id, TEST_SUPERVISOR, 'ignored: test');
  const res = await post(`/api/workflows/runs/${run.id}/approve`);
  expect(res.statusCode).toBe(200);
  expect(res.json().message).toBe("Approved gate 'review' of workflow demo; the run continues.");
});
