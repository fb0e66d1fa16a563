import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { assertBuilt, runCli, userCliEnv } from '../cli/cli-process.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A run's base branch end to end: the real `cairn serve`, the real CLI, real git. The request's
 * `baseBranch` (`--base`) is checked before anything is written; the base a run resolved is
 * recorded, shown by `cairn run get`, and kept by a resume; project config keys Cairn does not
 * read are shown as the run starts.
 */

let home: TempHome;
let root: string;
let clone: string;
let server: RunningServer;
let repo: string;
let codebaseId: string;
let codebases = 0;

beforeAll(assertBuilt);
async function openServer(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home);
  await writeHomeWorkflow(home, 'print-base', 'name: print-base\ndescription: prints its base\nnodes:\n  - id: base\n    bash: \'echo "base=$BASE_BRANCH"\'\n');
}
/** A codebase of the test's own: a fresh remote `acme/widget-<n>`, the user's clone of it, registered. */
async function newCodebase(): Promise<void> {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-base-req-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  repo = `widget-${++codebases}`;
  codebaseId = `acme/${repo}`;
  clone = cloneLocally(root, makeBareRemote(root, 'acme', repo), 'widget');
  // origin has a branch the clone has no local copy of.
  git(clone, 'push', '-q', 'origin', 'HEAD:only-on-origin');
  git(clone, 'fetch', '-q', 'origin');
  const res = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(res.status).toBeLessThan(300);
}

const cli = (argv: string[], cwd = home.home) => runCli(argv, { env: userCliEnv(home.home), cwd });

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

// Each test gets a codebase of its own and asks about its own runs: one server serves them all.
describe('on one server', () => {
  beforeAll(openServer);
  afterAll(() => home.close());
  beforeEach(newCodebase);

  it('answers 400 for a base that is not a branch, a hostile base and a base without a repository, writing nothing', async () => {
    // The runs other tests on this server left: none is added below.
    const before = ((await fetch(`${server.url}/api/workflows/runs`).then((r) => r.json())) as { runs: { id: string }[] }).runs.map((r) => r.id);
    const missing = await post('/api/workflows/print-base/run', { codebaseId, baseBranch: 'nope' });
    expect(missing).toEqual({
      status: 400,
      body: expect.objectContaining({
        code: 'BASE_BRANCH_NOT_FOUND',
        error: `baseBranch 'nope' is not a branch of the repository at ${clone}: neither refs/heads/nope nor refs/remotes/origin/nope exists. Name an existing branch, or fetch it first (git fetch origin nope)`,
      }),
    });
    for (const hostile of ['--upload-pack=x', '../x', 'main\nx', '$(touch pwned)', '`touch pwned`', 'a b', '-', 'x@{1}']) {
      const res = await post('/api/workflows/print-base/run', { codebaseId, baseBranch: hostile });
      expect(res.status, hostile).toBe(400);
      expect(res.body, hostile).toMatchObject({ code: 'BRANCH_NAME_INVALID', error: expect.stringContaining(`Invalid baseBranch ${JSON.stringify(hostile)}`) });
    }
    const wrongType = await post('/api/workflows/print-base/run', { codebaseId, baseBranch: ['main'] });
    expect([wrongType.status, wrongType.body.error]).toEqual([400, expect.stringContaining('baseBranch must be a string')]);
    const noRepository = await post('/api/workflows/print-base/run', { baseBranch: 'main' });
    expect(noRepository).toMatchObject({ status: 400, body: { code: 'BASE_BRANCH_NOT_FOUND', error: expect.stringContaining('only to a run in a git repository') } });
    const misspelt = await post('/api/workflows/print-base/run', { codebaseId, base: 'main' });
    expect(misspelt.body.error).toBe("Unknown field 'base'; accepted fields are message, conversationId, inputs, typedInputs, tiers, aliases, config, codebaseId, branch, baseBranch, budget");

    const runs = (await fetch(`${server.url}/api/workflows/runs`).then((r) => r.json())) as { runs: { id: string }[] };
    expect(runs.runs.map((r) => r.id)).toEqual(before);
    expect(existsSync(join(home.paths.workspaces, 'acme', repo, 'worktrees'))).toBe(false);
    expect(existsSync(join(home.paths.workspaces, 'acme', repo, 'artifacts'))).toBe(false);
    expect(existsSync(join(clone, 'pwned'))).toBe(false);
    expect(git(clone, 'branch', '--list').trim()).toBe('* main');

    // The CLI names its flag, not the API's field.
    const { code, stderr } = await cli(['workflow', 'run', 'print-base', '--codebase', codebaseId, '--base', 'nope']);
    expect(code).toBe(1);
    expect(stderr).toContain("--base 'nope' is not a branch of the repository");
  });

  it('runs on --base from origin, records it and shows it in cairn run get', async () => {
    const started = await cli(['workflow', 'run', 'print-base', '--codebase', codebaseId, '--base', 'only-on-origin', '--output', 'all']);
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    expect(started.stdout).toContain('base=only-on-origin');
    const runId = /Run (\S+) of workflow/.exec(started.stdout)![1]!;
    const { run } = await getRun(server.url, runId);
    expect(run.metadata).toMatchObject({ isolation: { base: 'only-on-origin' }, base_branch: { name: 'only-on-origin', source: 'request' } });
    const shown = await cli(['run', 'get', runId]);
    expect(shown.stdout).toMatch(/^Base\s+only-on-origin \(from --base\)$/m);
  });

  it('keeps the base it resolved through a resume, even after the project config changes', async () => {
    mkdirSync(join(clone, '.cairn'));
    writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: only-on-origin\n  copyFiles: [.env]\n');
    const flag = join(root, 'pass');
    await writeHomeWorkflow(
      home,
      'base-twice',
      `name: base-twice\ndescription: prints its base once a flag exists\nnodes:\n  - id: late\n    bash: 'test -e "${flag}" && echo "base=$BASE_BRANCH"'\n`,
    );
    const first = await cli(['workflow', 'run', 'base-twice', '--cwd', clone]);
    expect(first.code).toBe(1);
    // The config key Cairn does not read was shown as the run started.
    expect(first.stdout).toContain('.cairn/config.yaml: worktree.copyFiles is not supported by Cairn');
    const runId = /Run (\S+) of workflow/.exec(first.stdout)![1]!;
    expect((await getRun(server.url, runId)).run.metadata.base_branch).toEqual({ name: 'only-on-origin', source: 'project_config' });

    writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: main\n');
    writeFileSync(flag, '');
    const resumed = await fetch(`${server.url}/api/workflows/runs/${runId}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    const done = await waitFor(async () => {
      const detail = await getRun(server.url, runId);
      return detail.run.status === 'completed' ? detail : undefined;
    }, { what: 'the resumed run to complete', timeoutMs: 45_000 });
    const output = done.events.findLast((e) => e.event_type === 'node_completed' && e.step_name === 'late')?.data.node_output;
    expect(output).toBe('base=only-on-origin');
    expect(await readdir(join(home.paths.workspaces, 'acme', repo, 'worktrees'))).toEqual([runId]);
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a server of its own.
describe('on a server of its own', () => {
  beforeEach(async () => {
    await openServer();
    await newCodebase();
  });
  afterEach(() => home.close());

  it('keeps the base it resolved through a take-over after kill -9 of the supervisor', async () => {
    mkdirSync(join(clone, '.cairn'));
    writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: only-on-origin\n');
    const started = join(root, 'started');
    const flag = join(root, 'pass');
    await writeHomeWorkflow(
      home,
      'base-hold',
      `name: base-hold\ndescription: holds until its supervisor is gone, then prints its base\nnodes:\n  - id: hold\n    bash: 'if [ -e "${flag}" ]; then echo "base=$BASE_BRANCH"; else touch "${started}"; sleep 30 & wait; fi'\n`,
    );
    const res = await post('/api/workflows/base-hold/run', { codebaseId });
    expect(res.status).toBe(200);
    const runId = res.body.runId as string;
    await waitFor(async () => existsSync(started), { what: 'the node to hold', timeoutMs: 45_000 });
    expect((await getRun(server.url, runId)).run.metadata.base_branch).toEqual({ name: 'only-on-origin', source: 'project_config' });

    // The config changes, the supervisor dies; the next one takes the run over.
    writeFileSync(join(clone, '.cairn', 'config.yaml'), 'worktree:\n  baseBranch: main\n');
    writeFileSync(flag, '');
    const supervisorPid = await server.pid('supervisor');
    process.kill(supervisorPid, 'SIGKILL');
    const done = await waitFor(async () => {
      const detail = await getRun(server.url, runId);
      return ['completed', 'failed'].includes(detail.run.status as string) ? detail : undefined;
    }, { what: 'the run to finish after the take-over', timeoutMs: 45_000 });
    expect(done.run.status).toBe('completed');
    expect(await server.pid('supervisor')).not.toBe(supervisorPid);
    expect(done.events.findLast((e) => e.event_type === 'node_completed' && e.step_name === 'hold')?.data.node_output).toBe('base=only-on-origin');
  });
});
