import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { childrenOf } from '../helpers/processes.js';
import { holdWriteLock } from '../helpers/write-lock.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a supervisor killed after forking a node but before recording its start leaves nothing running: the node runs once', async () => {
  const server = await startServer(home);
  const log = join(home.home, 'executions.log');
  // The first attempt fails at once; the retry is forked while the database is locked, so its
  // node_started row cannot be written, and the supervisor is killed in that window.
  await writeHomeWorkflow(home, 'window', `name: window
description: a node forked in the crash window
nodes:
  - id: victim
    bash: "if [ -e .failed-once ]; then echo start >> '${log}'; sleep 2; echo end >> '${log}'; else touch .failed-once; exit 1; fi"
    retry: { max_attempts: 3, delay_ms: 4000, on_error: all }
`);
  const { runId } = await startRun(server.url, 'window');
  await waitFor(async () => (await getRun(server.url, runId)).events.some((e) => e.event_type === 'node_failed'), {
    what: 'the first attempt to fail',
  });
  const lock = await holdWriteLock(home);
  // The retry waits 4 s, which leaves the lock time to be taken first even on a loaded machine;
  // if it was not, the test missed its window and says so rather than blaming the engine.
  const startsBeforeLock = (await getRun(server.url, runId)).events.filter((e) => e.event_type === 'node_started').length;
  expect(startsBeforeLock, 'the retry started before the write lock was held: the test missed its window').toBe(1);

  const supervisorPid = await server.pid('supervisor');
  const helper = await waitFor(async () => (await childrenOf(supervisorPid)).find((c) => c.comm === 'perl'), {
    what: "the worker's spawn helper",
  });
  await waitFor(async () => (await childrenOf(helper.pid)).length > 0, { what: 'the retry to be forked' });
  process.kill(supervisorPid, 'SIGKILL');
  await lock.release();

  const { run } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to finish after the crash', timeoutMs: 45_000 });
  expect(run.status).toBe('completed');
  // Exactly one execution of the body: the forked child never ran its program.
  expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['start', 'end']);
});
