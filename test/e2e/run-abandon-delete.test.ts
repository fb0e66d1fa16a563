import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { childrenOf } from '../helpers/processes.js';
import { waitForRunFile } from '../helpers/run-files.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
// One server for the file: each test asks about the runs it started itself (or about ids no run
// has), and every run a test leaves is ended (cancelled, failed or completed).
beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

const slow = `name: slow
description: a node whose processes run until they are killed
nodes:
  - id: busy
    bash: "touch started; sleep 60 & sleep 60 & wait"
  - id: after
    depends_on: [busy]
    bash: echo never
`;
const failing = 'name: failing\ndescription: one node that fails\nnodes:\n  - id: a\n    bash: exit 3\n';
const quick = 'name: quick\ndescription: one node\nnodes:\n  - id: a\n    bash: echo hi\n';

async function call(server: RunningServer, method: string, path: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${server.url}${path}`, { method });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
const runPath = (id: string) => `/api/workflows/runs/${id}`;
const statusOf = async (server: RunningServer, id: string) => (await getRun(server.url, id)).run.status as string;
const until = (server: RunningServer, id: string, status: string) =>
  waitFor(async () => (await statusOf(server, id)) === status, { what: `run ${id} to be ${status}`, timeoutMs: 30_000 });

it('abandon while a node runs: its processes are gone, the run is cancelled, and it cannot be resumed', async () => {
  await writeHomeWorkflow(home, 'slow', slow);
  const { runId } = await startRun(server.url, 'slow');
  await waitForRunFile(home, { id: runId }, 'started');
  const started = (await getRun(server.url, runId)).events.find((e) => e.event_type === 'node_started' && e.step_name === 'busy')!;
  const group = started.data.pid as number;
  expect(isProcessGroupAlive(group)).toBe(true);

  const answer = await call(server, 'POST', `${runPath(runId)}/abandon`);
  expect(answer).toEqual({
    status: 200,
    body: { success: true, message: expect.stringContaining('Abandoned workflow slow'), cascadeFailures: 0, blockedParentRunId: null },
  });
  // The answer comes once the supervisor has carried the abandon out.
  const { run, events } = await getRun(server.url, runId);
  expect(run.status).toBe('cancelled');
  expect(isProcessGroupAlive(group)).toBe(false);
  // Nothing the node started is left under the worker's spawn helper or the supervisor.
  const supervisor = await server.pid('supervisor');
  const descendants = async (pid: number): Promise<string[]> => {
    const kids = await childrenOf(pid);
    return [...kids.map((k) => k.comm), ...(await Promise.all(kids.map((k) => descendants(k.pid)))).flat()];
  };
  expect((await descendants(supervisor)).filter((comm) => comm === 'sleep' || comm === 'bash')).toEqual([]);
  expect(events.find((e) => e.event_type === 'workflow_cancelled')!.data.reason).toBe('Abandoned by user');
  expect(events.some((e) => e.step_name === 'after')).toBe(false);

  expect(await call(server, 'POST', `${runPath(runId)}/resume`)).toMatchObject({
    status: 400, body: { error: "Cannot resume workflow in 'cancelled' status" },
  });
  expect(await call(server, 'POST', `${runPath(runId)}/abandon`)).toMatchObject({
    status: 400, body: { error: "Cannot abandon run with status 'cancelled'. Only running, paused, or failed runs can be abandoned." },
  });
});

it('abandon a failed run: it becomes cancelled and is no longer resumable', async () => {
  await writeHomeWorkflow(home, 'failing', failing);
  const { runId } = await startRun(server.url, 'failing');
  await until(server, runId, 'failed');
  expect((await call(server, 'POST', `${runPath(runId)}/abandon`)).status).toBe(200);
  expect(await statusOf(server, runId)).toBe('cancelled');
  expect((await call(server, 'POST', `${runPath(runId)}/resume`)).status).toBe(400);
});

it('§12 rows 19-20: delete is refused while running, allowed after cancel; then the run, its events and its folder are gone', async () => {
  await writeHomeWorkflow(home, 'slow', slow);
  const { runId } = await startRun(server.url, 'slow');
  await waitForRunFile(home, { id: runId }, 'started');
  await mkdir(home.paths.runArtifacts(runId), { recursive: true });
  await writeFile(join(home.paths.runArtifacts(runId), 'report.md'), 'kept until the run is deleted');

  expect(await call(server, 'DELETE', runPath(runId))).toEqual({
    status: 400, body: expect.objectContaining({ error: "Cannot delete workflow in 'running' status — cancel it first" }),
  });
  expect(existsSync(home.paths.runFolder(runId))).toBe(true);

  expect((await call(server, 'POST', `${runPath(runId)}/cancel`)).status).toBe(200);
  await until(server, runId, 'cancelled');
  expect(await call(server, 'DELETE', runPath(runId))).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });
  expect(await call(server, 'GET', runPath(runId))).toMatchObject({ status: 404, body: { error: 'Workflow run not found' } });
  expect(existsSync(home.paths.runFolder(runId))).toBe(false);
  const store = home.openStore();
  expect(await store.listEventsAfter(0, 10, { runId })).toEqual([]);
  expect(await call(server, 'DELETE', runPath(runId))).toMatchObject({ status: 404, body: { error: 'Workflow run not found' } });

  // Row 19: a completed run cannot be cancelled, resumed or abandoned (it can be deleted).
  await writeHomeWorkflow(home, 'quick', quick);
  const done = await startRun(server.url, 'quick');
  await until(server, done.runId, 'completed');
  expect((await call(server, 'POST', `${runPath(done.runId)}/cancel`)).body.error).toBe("Cannot cancel workflow in 'completed' status");
  expect((await call(server, 'POST', `${runPath(done.runId)}/resume`)).body.error).toBe("Cannot resume workflow in 'completed' status");
  expect((await call(server, 'POST', `${runPath(done.runId)}/abandon`)).body.error).toBe(
    "Cannot abandon run with status 'completed'. Only running, paused, or failed runs can be abandoned.",
  );
});

it('§12 row 18: every operation on an unknown run id is 404 Workflow run not found', async () => {
  for (const [method, suffix] of [['GET', ''], ['POST', '/cancel'], ['POST', '/resume'], ['POST', '/abandon'], ['DELETE', '']] as const) {
    expect(await call(server, method, `${runPath('does-not-exist')}${suffix}`), `${method} ${suffix}`).toMatchObject({
      status: 404, body: { error: 'Workflow run not found' },
    });
  }
});

it('hostile run ids get a 4xx and touch no file', async () => {
  // What a path escape from the runs folder would reach.
  const bait = join(home.paths.workspaces, 'bait');
  await mkdir(bait, { recursive: true });
  await writeFile(join(bait, 'keep'), 'x');
  for (const id of ['..%2Fbait', '..%2F..%2Fdb', '%2E%2E', '%22quoted%22', "it's", '..']) {
    for (const [method, suffix] of [['POST', '/resume'], ['POST', '/abandon'], ['DELETE', '']] as const) {
      const res = await fetch(`${server.url}${runPath(id)}${suffix}`, { method });
      expect(res.status, `${method} ${id}${suffix}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${id}${suffix}`).toBeLessThan(500);
    }
  }
  expect(existsSync(join(bait, 'keep'))).toBe(true);
  expect(existsSync(home.paths.database)).toBe(true);
  expect((await call(server, 'GET', '/api/workflows/runs')).status).toBe(200);
});
