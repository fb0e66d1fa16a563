import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let root: string;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-wt-kill-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
});

it('a supervisor killed with -9 while holding a worktree lock leaves a lock the next supervisor takes over', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  const server = await startServer(home);
  const registered = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(registered.status).toBeLessThan(300);
  const gate = join(root, 'gate');
  await writeHomeWorkflow(home, 'hold', `name: hold
description: waits for a gate in its worktree
nodes:
  - id: hold
    bash: "touch started; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo held"
`);
  const { runId } = await startRun(server.url, 'hold', { codebaseId: 'acme/widget' });
  const environment = async () => {
    const res = await fetch(`${server.url}/api/codebases/acme/widget/environments`);
    const [env] = ((await res.json()) as { environments: Record<string, any>[] }).environments;
    return env;
  };
  const held = await waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    const env = await environment();
    return run.status === 'running' && env?.locked_by_run === runId && existsSync(join(env.working_path, 'started')) ? env : undefined;
  }, { what: 'the run to hold its worktree lock', timeoutMs: 45_000 });
  const firstOwner = held.lock_owner as string;
  const supervisorPid = await server.pid('supervisor');
  expect(firstOwner).toContain(`-${supervisorPid}-`);

  process.kill(supervisorPid, 'SIGKILL');

  // The launcher starts another supervisor; it takes the run over, and with it the lock.
  const taken = await waitFor(async () => {
    const env = await environment();
    return env && env.lock_owner !== firstOwner && env.lock_owner !== null ? env : undefined;
  }, { what: 'the next supervisor to take the lock over', timeoutMs: 45_000 });
  expect(taken.locked_by_run).toBe(runId);
  expect(taken.working_path).toBe(held.working_path);
  expect(taken.id).toBe(held.id);
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);

  await writeFile(gate, '');
  const done = await waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return run.status === 'completed' || run.status === 'failed' ? run : undefined;
  }, { what: 'the run to finish', timeoutMs: 45_000 });
  expect(done.status).toBe('completed');
  expect(done.working_path).toBe(held.working_path);
  const released = (await environment())!;
  expect([released.locked_by_run, released.lock_owner, released.lock_expires_at, released.status]).toEqual([null, null, null, 'active']);
  // One worktree, still there, on the run's branch.
  expect(git(held.working_path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(`cairn/hold-${runId.slice(0, 8)}`);
  expect(git(clone, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
});
