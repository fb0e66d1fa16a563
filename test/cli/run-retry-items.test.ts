import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeFlakyItemWorkflow, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/** `cairn run retry-items` through the built CLI: a real fan-out whose bad items fail until a file exists. */

let home: TempHome;
let server: RunningServer;
let flags: string;
beforeEach(async () => {
  assertBuilt();
  home = await makeTempHome();
  server = await startServer(home);
  flags = await mkdtemp(join(tmpdir(), 'cairn-retry-'));
  home.defer(() => rm(flags, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
});

const cli = (argv: string[]) => runCli(argv, { env: userCliEnv(home.home, { CAIRN_URL: server.url }), cwd: home.home });

async function waitForEnd(runId: string): Promise<string> {
  return waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(run.status as string) ? (run.status as string) : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 60_000 });
}

it('retries only the failed items of a fan-out, printing them, and says when none is left', async () => {
  await writeFlakyItemWorkflow(home, flags);
  await writeHomeWorkflow(home, 'batch', `name: batch
description: 4 items, 2 bad
nodes:
  - id: each
    workflow: flaky
    fan_out: { items: '["a","bad1","b","bad2"]', max_parallel: 2, join: all_done, mode: in_run }
`);
  const { runId } = await startRun(server.url, 'batch');
  await waitForEnd(runId);
  await writeFile(join(flags, 'fixed'), '');

  const retry = await cli(['run', 'retry-items', runId.slice(0, 8), 'each']);
  expect(retry.stderr).toBe('');
  expect(retry.code).toBe(0);
  const lines = retry.stdout.split('\n');
  expect(lines[0]).toMatch(/^(Retrying|Retry of) 2 failed item\(s\) of 'each'/);
  expect(lines[2]).toMatch(/^INDEX\s+ITEM\s+WAS\s+ERROR$/);
  expect(lines[3]).toMatch(/^1\s+bad1\s+failed\s+\S/);
  expect(lines[4]).toMatch(/^3\s+bad2\s+failed\s+\S/);
  expect(retry.stdout).toContain(`Follow it with \`cairn run get ${runId}\`.`);

  expect(await waitForEnd(runId)).toBe('completed');
  expect((await readFile(join(flags, 'ran.log'), 'utf8')).trim().split('\n').sort()).toEqual(['a', 'b', 'bad1', 'bad2']);

  const none = await cli(['run', 'retry-items', runId, 'each']);
  expect(none).toMatchObject({ code: 1, stderr: "cairn: Fan-out node 'each' has no failed items to retry\n" });
});

it("shows the server's refusal of a node that is not there, and refuses a missing node argument (exit 2)", async () => {
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: one node\nnodes:\n  - id: one\n    bash: echo hi\n');
  const { runId } = await startRun(server.url, 'plain');
  await waitForEnd(runId);
  const missing = await cli(['run', 'retry-items', runId]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('Missing argument <node>.');
  const notFanOut = await cli(['run', 'retry-items', runId, 'one']);
  expect(notFanOut).toMatchObject({ code: 1, stderr: "cairn: Node 'one' of workflow 'plain' is not a fan-out (a workflow: node with fan_out)\n" });
  const hostile = await cli(['run', 'retry-items', runId, '../../cancel']);
  expect(hostile.code).toBe(1);
  expect(hostile.stderr).toMatch(/^cairn: /);
  expect((await getRun(server.url, runId)).run.status).toBe('completed');
});
