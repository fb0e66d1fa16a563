import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { holdWriteLock } from '../helpers/write-lock.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { waitForRunFile } from '../helpers/run-files.js';

/**
 * The moment a run ends: its last node's record and the run's terminal state are being written
 * (scheduler.ts, run-end.ts). Here another process holds the database's write lock across that
 * moment, and the supervisor is killed -9 while its writes wait behind it.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a supervisor killed -9 while the end of a run waits behind another process’s write lock: the next one ends it once, each node completed once, and the killed attempt never overlaps its retry', async () => {
  const server = await startServer(home);
  const store = home.openStore();
  await writeHomeWorkflow(home, 'ending', `name: ending
description: a first node, then a last one whose end is written while the database is locked
nodes:
  - id: first
    bash: echo first
  - id: last
    depends_on: [first]
    bash: 'echo "start $(date +%s%N)" >> ran.log; touch last.ran; while [ ! -e go ]; do sleep 0.05; done; echo "end $(date +%s%N)" >> ran.log; echo last-done'
`);
  const { runId } = await startRun(server.url, 'ending');
  await waitForRunFile(home, { id: runId }, 'last.ran');
  const lock = await holdWriteLock(home);
  // Only now may the last node end: its record, and the run's end after it, wait for the lock.
  await writeFile(join(home.paths.scratch(runId), 'go'), '');
  const runFiles = join(home.paths.scratch(runId), 'ran.log');
  await waitFor(async () => ((await readFile(runFiles, 'utf8')).includes('end ') ? true : undefined), { what: 'the last node to end' });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  expect((await store.getRun(runId))?.status).toBe('running');
  await lock.release();

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 90_000 });
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');

  // One terminal event, the last one; every node has exactly one recorded success.
  const workflowEvents = events.filter((e) => e.event_type.startsWith('workflow_')).map((e) => e.event_type);
  expect(workflowEvents.filter((t) => t !== 'workflow_queued' && t !== 'workflow_started' && t !== 'workflow_resumed')).toEqual(['workflow_completed']);
  expect(events.at(-1)!.event_type).toBe('workflow_completed');
  for (const node of ['first', 'last']) {
    expect(events.filter((e) => e.step_name === node && e.event_type === 'node_completed')).toHaveLength(1);
  }
  // `first` succeeded before the crash: its success is kept, it never runs again.
  expect(events.filter((e) => e.step_name === 'first' && e.event_type === 'node_started')).toHaveLength(1);
  // `last` ran again only if its end was never recorded, and never while its first run was alive.
  const runs = (await readFile(runFiles, 'utf8')).trim().split('\n').map((line) => line.split(' ') as [string, string]);
  for (let i = 0; i + 1 < runs.length; i += 2) {
    expect(runs[i]![0]).toBe('start');
    expect(runs[i + 1]![0]).toBe('end');
    if (i + 2 < runs.length) expect(BigInt(runs[i + 2]![1])).toBeGreaterThan(BigInt(runs[i + 1]![1]));
  }
  const lastStarts = events.filter((e) => e.step_name === 'last' && e.event_type === 'node_started').length;
  expect(runs.filter(([what]) => what === 'start')).toHaveLength(lastStarts);
});
