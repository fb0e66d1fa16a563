import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Runs on a registered codebase, end to end: the real `cairn serve` (API + supervisor + worker
 * threads), real git repositories in a temp folder (a bare file:// remote and a user's clone).
 */

let home: TempHome;
let root: string;
let clone: string;
let server: RunningServer;
let repo: string;
let codebaseId: string;
let codebases = 0;

// One server for the file: each test writes its own workflows and gets a codebase of its own
// below, so the environments, worktrees and artifacts it looks at are its own.
beforeAll(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

/** A codebase of the test's own: a fresh remote `acme/widget-<n>`, the user's clone of it, registered. */
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-wt-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  repo = `widget-${++codebases}`;
  codebaseId = `acme/${repo}`;
  clone = cloneLocally(root, makeBareRemote(root, 'acme', repo), 'widget');
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(res.status).toBeLessThan(300);
});

/** A workflow whose one node records where it ran, then waits for `gate` to exist. */
function holdingWorkflow(name: string, gate: string, extra = ''): string {
  return `name: ${name}
description: records its directory and waits for a gate
${extra}nodes:
  - id: hold
    bash: "pwd > here.txt; echo \\"$ARTIFACTS_DIR\\" > \\"$ARTIFACTS_DIR/where.txt\\"; touch started; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo held"
`;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function environments(): Promise<Record<string, any>[]> {
  const res = await fetch(`${server.url}/api/codebases/${codebaseId}/environments`);
  return ((await res.json()) as { environments: Record<string, any>[] }).environments;
}

async function waitForStatus(runId: string, statuses: string[]): Promise<Record<string, any>> {
  return waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    return statuses.includes(run.status as string) ? run : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 45_000 });
}

/** The run is running and its node has started in its working directory. */
async function waitUntilHolding(runId: string): Promise<Record<string, any>> {
  return waitFor(async () => {
    const { run } = await getRun(server.url, runId);
    if (run.status !== 'running' || !run.working_path) return undefined;
    return existsSync(join(run.working_path as string, 'started')) ? run : undefined;
  }, { what: `run ${runId} to hold its worktree`, timeoutMs: 45_000 });
}

it('gives two concurrent runs on one codebase two worktrees on two branches, each locked, then unlocked and kept', async () => {
  const gate = join(root, 'gate');
  await writeHomeWorkflow(home, 'hold', holdingWorkflow('hold', gate));
  const a = await startRun(server.url, 'hold', { codebaseId });
  const b = await startRun(`${server.url}`, 'hold', {});
  // The second one is bound by its cwd (the clone), not by id.
  const bByCwd = await fetch(`${server.url}/api/workflows/hold/run?cwd=${encodeURIComponent(clone)}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
  }).then((r) => r.json() as Promise<{ runId: string }>);
  const [runA, runB] = [await waitUntilHolding(a.runId), await waitUntilHolding(bByCwd.runId)];

  const worktrees = join(home.paths.workspaces, 'acme', repo, 'worktrees');
  expect(runA.working_path).toBe(join(worktrees, a.runId));
  expect(runB.working_path).toBe(join(worktrees, bByCwd.runId));
  expect(runA.codebase_id).toBe(codebaseId);
  expect(runB.codebase_id).toBe(codebaseId);
  for (const [run, id] of [[runA, a.runId], [runB, bByCwd.runId]] as const) {
    const branch = git(run.working_path as string, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
    expect(branch).toBe(`cairn/hold-${id.slice(0, 8)}`);
  }
  const held = await environments();
  expect(held.map((e) => e.locked_by_run).sort()).toEqual([a.runId, bByCwd.runId].sort());
  expect(held.every((e) => e.status === 'active' && e.provider === 'worktree' && e.lock_owner && e.lock_expires_at)).toBe(true);
  // The run without a codebase is untouched: it works in its scratch folder.
  const plain = await waitFor(async () => {
    const { run } = await getRun(server.url, b.runId);
    return run.status === 'running' ? run : undefined;
  }, { what: 'the plain run to run' });
  expect(plain.codebase_id).toBeNull();

  await writeFile(gate, '');
  for (const id of [a.runId, b.runId, bByCwd.runId]) expect((await waitForStatus(id, ['completed', 'failed'])).status).toBe('completed');
  const after = await environments();
  expect(after).toHaveLength(2);
  expect(after.every((e) => e.status === 'active' && e.locked_by_run === null && e.lock_owner === null)).toBe(true);
  // The worktrees stay for the user to inspect; $ARTIFACTS_DIR was the codebase's artifacts folder.
  expect(existsSync(join(runA.working_path as string, 'here.txt'))).toBe(true);
  const artifacts = join(home.paths.workspaces, 'acme', repo, 'artifacts', 'runs', a.runId);
  expect(await readFile(join(artifacts, 'where.txt'), 'utf8')).toBe(`${artifacts}\n`);
  // The user's checkout saw none of it.
  expect(git(clone, 'status', '--porcelain')).toBe('');

  // DELETE removes every worktree (git worktree remove + prune) and the environment rows.
  const del = await fetch(`${server.url}/api/codebases/${codebaseId}`, { method: 'DELETE' });
  expect(del.status).toBe(200);
  expect(existsSync(runA.working_path as string)).toBe(false);
  expect(existsSync(runB.working_path as string)).toBe(false);
  expect(git(clone, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
});

it('refuses the same branch asked for twice: the second run fails with a message, never shares the directory', async () => {
  const gate = join(root, 'gate');
  await writeHomeWorkflow(home, 'hold-branch', holdingWorkflow('hold-branch', gate));
  const first = await startRun(server.url, 'hold-branch', { codebaseId, branch: 'feature/login' });
  const run = await waitUntilHolding(first.runId);
  expect(git(run.working_path as string, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature/login');

  const second = await startRun(server.url, 'hold-branch', { codebaseId, branch: 'feature/login' });
  const failed = await waitForStatus(second.runId, ['failed', 'completed']);
  expect(failed.status).toBe('failed');
  expect(failed.error).toContain(`Branch 'feature/login' is already used by the worktree ${run.working_path} (run ${first.runId})`);
  // A branch checked out in the user's own checkout is refused too, naming where.
  const onMain = await startRun(server.url, 'hold-branch', { codebaseId, branch: 'main' });
  expect((await waitForStatus(onMain.runId, ['failed', 'completed'])).error).toContain(`Branch 'main' is already checked out at ${clone}`);
  // Deleting the codebase while a run holds a worktree is refused.
  const busy = await fetch(`${server.url}/api/codebases/${codebaseId}`, { method: 'DELETE' });
  expect(busy.status).toBe(409);
  expect(((await busy.json()) as { error: string }).error).toContain(`run ${first.runId}`);

  await writeFile(gate, '');
  expect((await waitForStatus(first.runId, ['completed', 'failed'])).status).toBe('completed');
  const envs = await environments();
  expect(envs.map((e) => [e.branch_name, e.workflow_id, e.locked_by_run])).toEqual([['feature/login', first.runId, null]]);
});

it('answers 400 for hostile branch names, a branch without a codebase and an unknown codebaseId, before queueing anything', async () => {
  await writeHomeWorkflow(home, 'hold-refused', holdingWorkflow('hold-refused', join(root, 'gate')));
  const hostile = ['-x', '..', 'a..b', 'has space', '$(touch pwned)', 'a\nb', '../../etc/passwd', '`id`', 'x;rm -rf ~', 'refs/heads/../x', 'ok.lock', 'x@{1}'];
  for (const branch of hostile) {
    const res = await post('/api/workflows/hold-refused/run', { codebaseId, branch });
    expect(res.status, branch).toBe(400);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.code, branch).toBe('BRANCH_NAME_INVALID');
    expect(body.error, branch).toContain(`Invalid branch ${JSON.stringify(branch)}`);
  }
  expect(existsSync(join(clone, 'pwned'))).toBe(false);
  const noCodebase = await post('/api/workflows/hold-refused/run', { branch: 'fine' });
  expect(noCodebase.status).toBe(400);
  expect(((await noCodebase.json()) as { error: string }).error).toContain('branch applies only to a run on a registered codebase');
  const unknown = await post('/api/workflows/hold-refused/run', { codebaseId: 'nobody/nothing' });
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as { error: string }).error).toContain("Unknown codebaseId 'nobody/nothing'");
  const traversal = await post('/api/workflows/hold-refused/run', { codebaseId: '../../etc' });
  expect(traversal.status).toBe(400);
  // Every request above was for this workflow, which no other test runs: none of them queued a run.
  const runs = await fetch(`${server.url}/api/workflows/runs?workflow=hold-refused`).then((r) => r.json() as Promise<{ runs: unknown[] }>);
  expect(runs.runs).toHaveLength(0);
});

it('runs the documented opt-outs in the checkout itself: worktree.enabled false (locked), mutates_checkout false (shared), project config', async () => {
  // The two workflows of docs/worktrees.md, as their fixtures.
  const fixtures = join(fileURLToPath(new URL('../fixtures/workflows/examples/workflows/', import.meta.url)));
  for (const name of ['in-checkout', 'read-only-report']) {
    await writeHomeWorkflow(home, name, await readFile(join(fixtures, `${name}.yaml`), 'utf8'));
  }
  await writeHomeWorkflow(home, 'plain', `name: plain\ndescription: default\nnodes:\n  - id: a\n    bash: pwd\n`);
  for (const name of ['in-checkout', 'read-only-report']) {
    const { runId } = await startRun(server.url, name, { codebaseId });
    const run = await waitForStatus(runId, ['completed', 'failed']);
    expect(run.status, name).toBe('completed');
    expect(run.working_path).toBe(clone);
  }
  const reports = join(home.paths.workspaces, 'acme', repo, 'artifacts', 'runs');
  const [reportRun] = (await (await import('node:fs/promises')).readdir(reports)).filter((d) => existsSync(join(reports, d, 'file-count.txt')));
  expect((await readFile(join(reports, reportRun!, 'file-count.txt'), 'utf8')).trim()).toBe('1');
  // Neither left an environment: the checkout use is dropped at the end, a shared run takes none.
  expect(await environments()).toEqual([]);

  // The project config block of docs/worktrees.md.
  await mkdir(join(clone, '.cairn'), { recursive: true });
  await writeFile(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  enabled: false\n');
  const { runId } = await startRun(server.url, 'plain', { codebaseId });
  expect((await waitForStatus(runId, ['completed', 'failed'])).working_path).toBe(clone);
});

it("binds a run attached to a project conversation to that conversation's codebase", async () => {
  await writeHomeWorkflow(home, 'quick', 'name: quick\ndescription: where am I\nnodes:\n  - id: a\n    bash: pwd\n');
  const created = await post('/api/conversations', { codebase_id: codebaseId });
  const { conversationId } = (await created.json()) as { conversationId: string };
  const started = await startRun(server.url, 'quick', { conversationId });
  const run = await waitForStatus(started.runId, ['completed', 'failed']);
  expect(run).toMatchObject({ status: 'completed', codebase_id: codebaseId, conversation_id: conversationId });
  expect(run.working_path).toBe(join(home.paths.workspaces, 'acme', repo, 'worktrees', started.runId));
});

it("deleting a finished run on a codebase removes its artifacts folder and keeps its worktree and branch", async () => {
  await writeHomeWorkflow(home, 'mark', 'name: mark\ndescription: writes an artifact\nnodes:\n  - id: a\n    bash: "echo hi > \\"$ARTIFACTS_DIR/out.txt\\"; echo work > work.txt"\n');
  const started = await startRun(server.url, 'mark', { codebaseId });
  const run = await waitForStatus(started.runId, ['completed', 'failed']);
  expect(run.status).toBe('completed');
  const artifacts = join(home.paths.workspaces, 'acme', repo, 'artifacts', 'runs', started.runId);
  expect(existsSync(join(artifacts, 'out.txt'))).toBe(true);
  const res = await fetch(`${server.url}/api/workflows/runs/${started.runId}`, { method: 'DELETE' });
  expect(res.status).toBe(200);
  expect(existsSync(artifacts)).toBe(false);
  expect(existsSync(join(run.working_path as string, 'work.txt'))).toBe(true);
  expect(git(clone, 'branch', '--list', `cairn/mark-${started.runId.slice(0, 8)}`)).toContain('cairn/mark-');
});

it("resumed with reload, a run on a codebase takes its project workflow as the checkout now has it (not yet committed, so not in the worktree)", async () => {
  const dir = join(clone, '.cairn', 'workflows');
  await mkdir(dir, { recursive: true });
  const flaky = (body: string) => `name: flaky\ndescription: fails until fixed\nnodes:\n  - id: a\n    bash: "${body}"\n`;
  await writeFile(join(dir, 'flaky.yaml'), flaky('exit 1'));
  const started = await startRun(server.url, 'flaky', { codebaseId });
  expect((await waitForStatus(started.runId, ['completed', 'failed'])).status).toBe('failed');

  await writeFile(join(dir, 'flaky.yaml'), flaky('echo fixed'));
  // Without reload the run keeps the copy it took when it started (docs/runs.md).
  const res = await post(`/api/workflows/runs/${started.runId}/resume`, { reload: true });
  expect(res.status).toBe(200);
  expect((await waitForStatus(started.runId, ['completed', 'failed'])).status).toBe('completed');
  const { events } = await getRun(server.url, started.runId);
  const done = events.filter((e) => e.event_type === 'node_completed').map((e) => String(e.data.node_output).trim());
  expect(done).toEqual(['fixed']);
});
