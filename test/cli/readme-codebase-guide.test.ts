import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { assertBuilt } from './cli-process.js';
import { sh } from './shell-line.js';

/**
 * The README's "Register a repository and run a workflow on it", as written: its command block is
 * read from the README and typed line by line into `sh` in a real clone (with `~/code/widget`
 * standing for the clone), with `cairn` linked onto PATH as `npm link` would.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));
let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

function guideScript(): string {
  const readme = readFileSync(join(checkout, 'README.md'), 'utf8');
  const section = readme.split('## Register a repository and run a workflow on it')[1]?.split('\n## ')[0];
  const block = section?.match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error('the README lost its "Register a repository" command block');
  return block;
}

it('registers a checkout and runs a workflow on it in a worktree of its own, as the README says', async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-guide-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  const widget = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  const bin = join(root, 'bin');
  await sh(`mkdir -p '${bin}'`, root, process.env);
  await symlink(join(checkout, 'bin', 'cairn.js'), join(bin, 'cairn'));
  await startServer(home);
  const { PORT: _port, CAIRN_URL: _url, ...inherited } = process.env;
  const env = { ...inherited, CAIRN_HOME: home.home, NO_COLOR: '1', PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };

  const script = guideScript();
  expect(script.startsWith('cd ~/code/widget\n')).toBe(true);
  const result = await sh(`set -e\n${script.replace('~/code/widget', `'${widget}'`)}`, root, env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const out = result.stdout;
  expect(out).toContain(`Codebase acme/widget (repo) at ${widget}.\n`);
  const runId = /Run (\S+) of workflow stamp started\./.exec(out)?.[1];
  expect(runId).toBeDefined();
  expect(out).toMatch(/Run \S+ completed in/);
  const branch = `cairn/stamp-${runId!.slice(0, 8)}`;
  const worktree = join(home.paths.workspaces, 'acme', 'widget', 'worktrees', runId!);
  expect(out).toMatch(new RegExp(`^${worktree}\\s+[0-9a-f]+ \\[${branch}\\]$`, 'm'));
  expect(out).toMatch(new RegExp(`^[+*] ${branch}$`, 'm')); // `+`: checked out in another worktree
  // The commit is on the run's branch, in its worktree; the user's checkout is where it was.
  expect(git(widget, 'log', '--format=%s', '-1', branch).trim()).toBe(`Stamp from run ${runId}`);
  expect(existsSync(join(worktree, 'STAMP.txt'))).toBe(true);
  expect(existsSync(join(widget, 'STAMP.txt'))).toBe(false);
  expect(git(widget, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
});
