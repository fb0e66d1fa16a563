import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { cloneLocally, git, makeBareRemote } from './git-fixtures.js';

let home: TempHome;
let root: string;
let t: TestApp;

beforeEach(async () => {
  home = await makeTempHome();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-git-')));
  home.defer(() => rmSync(root, { recursive: true, force: true }));
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const post = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/codebases', payload: body as object });

describe('POST /api/codebases', () => {
  it('clones a file:// URL into the workspace as owner/repo and answers 201, then 200 for the same remote', async () => {
    const url = makeBareRemote(root, 'acme', 'widgets');
    const res = await post({ url });
    expect(res.statusCode).toBe(201);
    const source = join(home.home, 'workspaces', 'acme', 'widgets', 'source');
    expect(res.json()).toMatchObject({
      id: 'acme/widgets', name: 'acme/widgets', kind: 'repo', managed: true, default_cwd: source,
      repository_url: url, default_branch: 'main', allow_env_keys: false,
      env_scan: { status: 'clean', files: [], keys: [] },
    });
    expect(existsSync(join(source, 'README.md'))).toBe(true);

    const again = await post({ url: url.replace(/\.git$/, '') });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe('acme/widgets');
  });

  it('never stores or answers the credentials of a clone URL, nor of a registered checkout\'s origin', async () => {
    const plain = makeBareRemote(root, 'acme', 'private');
    const secret = 'ghp_CLONE_URL_TOKEN';
    const res = await post({ url: plain.replace('file://', `file://x-access-token:${secret}@`) });
    expect(res.statusCode).toBe(201);
    expect(res.json().repository_url).toBe(plain);
    const checkout = cloneLocally(root, plain, 'with-token');
    git(checkout, 'remote', 'set-url', 'origin', `https://${secret}@github.com/acme/other.git`);
    const local = await post({ path: checkout });
    expect(local.json().repository_url).toBe('https://github.com/acme/other.git');
    const answers = [res.body, local.body, (await t.app.inject({ url: '/api/codebases' })).body, (await t.app.inject({ url: '/api/codebases/acme/private' })).body];
    for (const body of answers) expect(body).not.toContain(secret);
    expect(JSON.stringify(await t.store.listCodebases())).not.toContain(secret);
  });

  it('gives two local clones of one remote one id: the second registration answers 200 with the first', async () => {
    const url = makeBareRemote(root, 'acme', 'gadgets');
    const a = cloneLocally(root, url, 'clone-a');
    const b = cloneLocally(root, url, 'clone-b');
    const first = await post({ path: a });
    const second = await post({ path: b });
    expect([first.statusCode, second.statusCode]).toEqual([201, 200]);
    expect(first.json()).toMatchObject({ id: 'acme/gadgets', kind: 'repo', managed: false, default_cwd: a });
    expect(second.json()).toEqual(first.json());
    expect((await t.app.inject({ method: 'GET', url: '/api/codebases' })).json().codebases).toHaveLength(1);
  });

  it('registers a repository without a remote as local/<folder>@<hash>, stable across registrations', async () => {
    const dir = join(root, 'scratchpad');
    mkdirSync(dir);
    git(dir, 'init', '-q');
    const res = await post({ path: dir });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'repo', repository_url: null, default_branch: 'main' });
    expect(res.json().id).toMatch(/^local\/scratchpad@[0-9a-f]{12}$/);
    expect((await post({ path: `${dir}/` })).json().id).toBe(res.json().id);
  });

  it('registers a folder that is not a git repository as kind folder', async () => {
    const dir = join(root, 'notes');
    mkdirSync(dir);
    const res = await post({ path: dir });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'folder', repository_url: null, default_branch: null, managed: false });
  });

  it('refuses anything but exactly one of url and path, naming the rule', async () => {
    for (const body of [{}, { url: 'file:///x/o/r.git', path: '/tmp' }]) {
      const res = await post(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain('Provide either "url" or "path", not both and not neither');
    }
  });

  it('refuses a path that does not exist, is a file, or is relative, naming the path', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const cases: [string, string][] = [
      [join(root, 'missing'), 'does not exist'],
      [file, 'is not a directory'],
      ['relative/dir', 'must be absolute'],
    ];
    for (const [path, why] of cases) {
      const res = await post({ path });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'CODEBASE_PATH_INVALID' });
      expect(res.json().error).toContain(path);
      expect(res.json().error).toContain(why);
    }
  });

  it('answers 400 with git’s reason for a URL that cannot be cloned, and leaves no directory behind', async () => {
    const res = await post({ url: `file://${join(root, 'nowhere', 'repo.git')}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CODEBASE_CLONE_FAILED' });
    expect(res.json().error).toMatch(/^Failed to add codebase: /);
    expect(existsSync(join(home.home, 'workspaces', 'nowhere'))).toBe(false);
  });

  it('answers the line of git’s output that names the problem, not its closing advice', async () => {
    const res = await post({ url: `file://${join(root, 'no-such', 'acme', 'widgets.git')}` });
    expect(res.statusCode).toBe(400);
    const { error } = res.json() as { error: string };
    expect(error).toMatch(/^Failed to add codebase: /);
    expect(error).not.toBe('Failed to add codebase: and the repository exists.');
    expect(error).toMatch(/does not appear to be a git repository|not found|does not exist/);
  });
});
