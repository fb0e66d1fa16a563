import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { mountSmallDisk, smallDisksAvailable } from '../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * `cairn serve > file` with the file on a real 1 MB disk (a tmpfs, mounted as root) that fills
 * up; the database is elsewhere and fine. Every log line now meets ENOSPC. A log write must
 * never block a process or crash it: the server keeps answering and running workflows, and
 * once space returns the lines held meanwhile reach the file (past 1 MiB held they are dropped
 * and counted: test/shared/log-destination.test.ts).
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** The run's status, or undefined when the API does not answer within 2 s (a blocked process). */
async function statusOf(server: RunningServer, runId: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${server.url}/api/workflows/runs/${runId}`, { signal: AbortSignal.timeout(2_000) });
    return ((await res.json()) as { run: { status: string } }).run.status;
  } catch {
    return undefined;
  }
}

async function runToCompletion(server: RunningServer, what: string): Promise<void> {
  const { runId } = await startRun(server.url, 'plain', { message: what });
  await waitFor(async () => (await statusOf(server, runId)) === 'completed', { what: `the run ${what} to complete` });
}

/** The names of the processes (api, supervisor) whose log lines in the file mention `text`. */
async function processesLogging(logFile: string, text: string): Promise<Set<string>> {
  const lines = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line.includes(text));
  return new Set(lines.map((line) => (JSON.parse(line) as { name: string }).name));
}

describe.skipIf(!smallDisksAvailable)('a full disk under the server’s log file', () => {
  it('neither blocks nor crashes a process: runs go on, and what both processes logged meanwhile reaches the file once space returns', async () => {
    const disk = mountSmallDisk(home, join(home.home, 'log-disk'), 1);
    const logFile = join(disk.dir, 'serve.log');
    await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: one node\nnodes:\n  - id: a\n    bash: echo hi\n');
    // At debug both processes log every request and every job they handle.
    const server = await startServer(home, { CAIRN_LOG_LEVEL: 'debug' }, { logFile });
    const pids = { api: await server.pid('api'), supervisor: await server.pid('supervisor') };
    await disk.fill({ topUp: [logFile] });

    const { runId } = await startRun(server.url, 'plain', { message: 'while the log disk is full' });
    await waitFor(async () => (await statusOf(server, runId)) === 'completed', { what: 'the run to complete while the log disk is full', timeoutMs: 60_000 });
    expect((await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(2_000) })).status).toBe(200);
    expect(await processesLogging(logFile, runId)).toEqual(new Set());

    await disk.free();
    await runToCompletion(server, 'after space returned');
    // What they logged meanwhile was held, not lost: it reaches the file once there is room.
    await waitFor(async () => (await processesLogging(logFile, runId)).size === 2, {
      what: 'the lines both processes logged about the first run to reach the file',
    });
    // Neither process died and was restarted by the launcher.
    expect(await server.pid('api')).toBe(pids.api);
    expect(await server.pid('supervisor')).toBe(pids.supervisor);
    expect(server.launcher.exitCode).toBeNull();
  });
});
