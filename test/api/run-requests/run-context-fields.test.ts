import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../codebases/git-fixtures.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The run request's fields that feed `$BASE_BRANCH` and `$DOCS_DIR` (`baseBranch`,
 * `config.docs.path`), and the project config warnings a run request carries into the run.
 */

let home: TempHome;
let t: TestApp;
let repo: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
  repo = await realpath(await mkdtemp(join(tmpdir(), 'cairn-ctx-')));
  home.defer(() => rm(repo, { recursive: true, force: true }));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'one');
});
afterEach(async () => {
  await home.close();
});

async function run(payload: unknown, cwd?: string) {
  const url = `/api/workflows/plain/run${cwd ? `?cwd=${encodeURIComponent(cwd)}` : ''}`;
  const res = await t.app.inject({ method: 'POST', url, payload: payload as object });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

async function runCount(): Promise<number> {
  return (await t.app.inject({ url: '/api/workflows/runs' })).json<{ runs: unknown[] }>().runs.length;
}

describe('baseBranch', () => {
  it('is kept for a run in a git cwd when that branch exists, and refused (writing nothing) when it does not', async () => {
    const accepted = await run({ baseBranch: 'main' }, repo);
    expect(accepted.status).toBe(200);
    const { run: stored } = (await t.app.inject({ url: `/api/workflows/runs/${accepted.body.runId}` })).json<{ run: Record<string, any> }>();
    expect(stored.metadata.isolation).toEqual({ base: 'main' });
    const refused = await run({ baseBranch: 'develop' }, repo);
    expect(refused).toMatchObject({ status: 400, body: { code: 'BASE_BRANCH_NOT_FOUND', error: expect.stringContaining(`baseBranch 'develop' is not a branch of the repository at ${repo}`) } });
    const plainFolder = join(repo, 'a-folder');
    mkdirSync(plainFolder);
    // A folder inside the repository is in the repository.
    expect((await run({ baseBranch: 'main' }, plainFolder)).status).toBe(200);
    expect(await runCount()).toBe(2);
  });
});

describe('config.docs.path', () => {
  it.each([
    ['../outside', 'it has a ".." part (it must stay inside the project)'],
    ['/etc', 'it is absolute; give the folder relative to the project root (as in docs/ or site/content)'],
    ['docs"; rm -rf ~; "', 'it contains a character other than letters, digits, spaces and . _ / + - @'],
    ['docs\nx', 'it contains a character other than letters, digits, spaces and . _ / + - @'],
    ['-docs', 'it starts with "-"'],
    ['$(id)', 'it contains a character other than letters, digits, spaces and . _ / + - @'],
  ])('refuses %j, naming the field', async (path, why) => {
    const res = await run({ config: { docs: { path } } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`config.docs.path ${JSON.stringify(path.trim())} cannot be used: ${why}`);
    expect(await runCount()).toBe(0);
  });

  it('keeps a usable path in the run’s overrides', async () => {
    const res = await run({ config: { docs: { path: 'site/my docs' } } });
    expect(res.status).toBe(200);
    const { run: stored } = (await t.app.inject({ url: `/api/workflows/runs/${res.body.runId}` })).json<{ run: Record<string, any> }>();
    expect(stored.metadata.overrides.config.docs).toEqual({ path: 'site/my docs' });
  });

  it('points a base branch given in config at the request field', async () => {
    for (const config of [{ baseBranch: 'main' }, { worktree: { baseBranch: 'main' } }]) {
      const res = await run({ config });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("give the run's base branch as the request field baseBranch (cairn workflow run --base <branch>)");
    }
  });
});

describe('project config warnings', () => {
  it('are listed with the workflows and carried into the run’s parse warnings', async () => {
    mkdirSync(join(repo, '.cairn'));
    writeFileSync(join(repo, '.cairn', 'config.yaml'), 'container:\n  image: node\n');
    const warning = '.cairn/config.yaml: container is not supported by Cairn: Cairn does not run nodes in containers; it is ignored';
    const listing = (await t.app.inject({ url: `/api/workflows?cwd=${encodeURIComponent(repo)}` })).json<Record<string, any>>();
    expect(listing.configWarnings).toEqual([warning]);
    expect((await t.app.inject({ url: '/api/workflows' })).json<Record<string, any>>()).not.toHaveProperty('configWarnings');
    const started = await run({}, repo);
    const { run: stored } = (await t.app.inject({ url: `/api/workflows/runs/${started.body.runId}` })).json<{ run: Record<string, any> }>();
    expect(stored.metadata.parse_warnings).toEqual([warning]);
  });
});
