import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { waitForRunFile } from '../helpers/run-files.js';

/**
 * A cancel accepted by the API (200) while the supervisor is dead: its `cancel_run` job is queued,
 * not yet claimed, when the launcher's next supervisor starts and takes the run over. The cancel
 * was accepted before anything of the run could start again, so nothing of the run may start
 * again, and the run must end cancelled.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/**
 * `one-slow`: one node whose first execution is slow (a crash cuts it short) and any later one
 * quick (it would complete the run). Each execution appends `start` to the returned log.
 */
async function writeOneSlow(): Promise<string> {
  const log = join(home.home, 'executions.log');
  await writeHomeWorkflow(home, 'one-slow', `name: one-slow
description: one node, slow the first time only
nodes:
  - id: work
    bash: "echo start >> '${log}'; if [ ! -e .again ]; then touch .again; sleep 30; fi; echo done"
`);
  return log;
}

it('a cancel accepted while the supervisor is dead (before the restarted one claims it): the take-over starts no node again and the run ends cancelled', async () => {
  const server = await startServer(home);
  const log = await writeOneSlow();
  const { runId } = await startRun(server.url, 'one-slow');
  await waitForRunFile(home, { id: runId }, '.again');
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  // The API is up: the cancel is accepted at once, before the next supervisor has started.
  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
  expect(res.status).toBe(200);
  const acceptedAt = Date.now();

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 60_000 });
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('cancelled');
  // Nothing started after the cancel was accepted: the node ran once (the execution cut short).
  const starts = events.filter((e) => e.event_type === 'node_started');
  expect(starts.filter((e) => Date.parse(e.created_at) >= acceptedAt)).toEqual([]);
  expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['start']);
  expect(events.at(-1)!.event_type).toBe('workflow_cancelled');
});

it('a cancel accepted while the supervisor is dead, with another orphaned run to take over after it: the cancelled run must not complete', async () => {
  const server = await startServer(home);
  const log = await writeOneSlow();
  // Another run whose orphan ignores SIGTERM: its take-over waits out the kill grace.
  await writeHomeWorkflow(home, 'stubborn', `name: stubborn
description: a node that ignores SIGTERM the first time
nodes:
  - id: hold
    bash: "if [ -e .again ]; then echo again; exit 0; fi; touch .again; exec >/dev/null 2>&1; trap '' TERM; touch ready; while :; do sleep 0.1; done"
`);
  const cancelled = await startRun(server.url, 'one-slow');
  await waitForRunFile(home, { id: cancelled.runId }, '.again');
  const other = await startRun(server.url, 'stubborn');
  await waitForRunFile(home, { id: other.runId }, 'ready');

  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  const res = await fetch(`${server.url}/api/workflows/runs/${cancelled.runId}/cancel`, { method: 'POST' });
  expect(res.status).toBe(200);

  const ended = async (runId: string) => waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to end after the crash`, timeoutMs: 60_000 });
  const { run, events } = await ended(cancelled.runId);
  expect((await ended(other.runId)).run.status).toBe('completed');
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  // The user's cancel, accepted with a 200 while the run was running, is final.
  expect(run.status).toBe('cancelled');
  expect(events.filter((e) => e.event_type === 'node_completed')).toEqual([]);
  expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['start']);
});
