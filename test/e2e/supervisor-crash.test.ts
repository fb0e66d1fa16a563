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

const chain = `name: chain
description: a short chain with a slow middle node
nodes:
  - id: first
    bash: echo first
  - id: slow
    depends_on: [first]
    bash: "sleep 30 & wait; echo slow"
  - id: last
    depends_on: [slow]
    bash: echo last
`;

it('survives kill -9 of the supervisor mid-run: the run completes and its log has no gaps or doubles', async () => {
  const server = await startServer(home);
  // The slow node takes 30 s on its first attempt only: the retry after the crash is quick.
  await writeHomeWorkflow(home, 'chain', chain.replace('sleep 30 & wait; echo slow', 'if [ -e .again ]; then echo slow; else touch .again; sleep 30 & wait; fi'));
  const { runId } = await startRun(server.url, 'chain');

  const firstAttempt = await waitFor(async () => {
    const { events } = await getRun(server.url, runId);
    return events.find((e) => e.event_type === 'node_started' && e.step_name === 'slow');
  }, { what: 'the slow node to start' });
  await waitForRunFile(home, { id: runId }, '.again');
  const orphanGroup = firstAttempt.data.pid as number;
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.run.status === 'completed' || detail.run.status === 'failed' ? detail : undefined;
  }, { what: 'the run to finish after the crash', timeoutMs: 45_000 });
  expect(run.status).toBe('completed');
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  // The orphaned process group of the interrupted attempt was killed by the new supervisor.
  expect(isProcessGroupAlive(orphanGroup)).toBe(false);

  // Gapless: this run's events are consecutive sequence numbers.
  const seqs = events.map((e) => e.seq as number);
  expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  // Finished nodes stay finished; no node completes twice.
  const completions = events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name);
  expect(completions.sort()).toEqual(['first', 'last', 'slow']);
  // The interrupted attempt is closed, and the node ran again as attempt 2 of the same invocation.
  const slow = events.filter((e) => e.step_name === 'slow').map((e) => ({
    type: e.event_type as string,
    attempt: e.data.execution?.attempt?.id as string,
    invocation: e.data.execution?.invocation?.id as string,
  }));
  expect(slow.map((e) => e.type)).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
  expect(new Set(slow.map((e) => e.invocation)).size).toBe(1);
  expect(slow[0]!.attempt).toBe(slow[1]!.attempt);
  expect(slow[2]!.attempt).not.toBe(slow[0]!.attempt);
});
