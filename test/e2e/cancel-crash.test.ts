import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { waitForRunFile } from '../helpers/run-files.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

// `stubborn` ignores SIGTERM (so does its sleep), so a cancel waits out the kill grace for it;
// `quick` dies at once. Each has a dependant that would run whatever happened to it.
const cancelMidway = `name: cancel-midway
description: a cancel that takes its kill grace, and all_done dependants that must never start
nodes:
  - id: stubborn
    bash: "trap '' TERM; touch stubborn.ready; sleep 60"
  - id: quick
    bash: "sleep 60"
  - id: after_stubborn
    depends_on: [stubborn]
    trigger_rule: all_done
    bash: echo after
  - id: after_quick
    depends_on: [quick]
    trigger_rule: all_done
    bash: echo after
`;

it('a supervisor killed -9 mid-cancel: the next one finishes the cancel, never resumes the run', async () => {
  const server = await startServer(home);
  const store = home.openStore();
  await writeHomeWorkflow(home, 'cancel-midway', cancelMidway);
  const { runId } = await startRun(server.url, 'cancel-midway');
  const starts = await waitFor(async () => {
    const found = (await getRun(server.url, runId)).events.filter((e) => e.event_type === 'node_started');
    return found.length === 2 ? found : undefined;
  }, { what: 'both nodes to start' });
  const stubbornGroup = starts.find((e) => e.step_name === 'stubborn')!.data.pid as number;
  // node_started is committed just before the program runs: wait until it ignores SIGTERM.
  await waitForRunFile(home, { id: runId }, 'stubborn.ready');

  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
  expect(res.status).toBe(200);
  // The cancel is under way: quick is recorded cancelled while stubborn waits out its grace.
  await waitFor(async () => (await getRun(server.url, runId)).events.some((e) => e.event_type === 'node_failed' && e.step_name === 'quick'), {
    what: 'quick to be cancelled',
  });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  // The crash came before the cancel was recorded, or this test proves nothing.
  expect((await store.getRun(runId))?.status).toBe('running');
  expect(isProcessGroupAlive(stubbornGroup)).toBe(true);

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 60_000 });
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('cancelled');
  expect(isProcessGroupAlive(stubbornGroup)).toBe(false);

  const timeline = events.map((e) => `${e.event_type}:${e.step_name ?? ''}`);
  // No node started after the cancel: neither dependant, nor the interrupted node again.
  expect(timeline.filter((t) => t.startsWith('node_started:')).sort()).toEqual(['node_started:quick', 'node_started:stubborn']);
  expect(timeline.at(-1)).toBe('workflow_cancelled:');
  expect(timeline.filter((t) => t.startsWith('workflow_') && t !== 'workflow_queued:').slice(1)).toEqual(['workflow_cancelled:']);
  // The attempt cut short by the crash is closed as the user's cancel, not as an interruption to retry.
  const stubbornEnd = events.filter((e) => e.step_name === 'stubborn' && e.event_type === 'node_failed').at(-1)!;
  expect(stubbornEnd.data).toMatchObject({ failure_kind: 'cancelled', error: 'Cancelled by user' });
  expect(stubbornEnd.data.interrupted).toBeUndefined();

  // The cancel job, claimed again by the new supervisor, reports the cancel it asked for.
  const cancelJob = await waitFor(async () => {
    const job = (await store.listRunJobs(runId)).find((j) => j.kind === 'cancel_run');
    return job?.status === 'done' ? job : undefined;
  }, { what: 'the cancel job to finish' });
  expect(cancelJob.result).toBe('cancelled');
});
