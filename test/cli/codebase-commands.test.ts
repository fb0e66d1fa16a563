import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { codebaseSource } from '../../src/cli/commands/codebase.js';
import { cloneLocally, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runCliInProcess } from './cli-harness.js';

/** `cairn codebase add|list|allow-env|remove` against the real server. */

let home: TempHome;
let root: string;
let server: RunningServer;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-cli-cb-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

const cli = (argv: string[], cwd = root) => runCliInProcess([...argv, '--url', server.url], { cwd });

it('tells URLs from paths, making a relative path absolute', () => {
  expect(codebaseSource('https://github.com/acme/widget.git', '/x')).toEqual({ url: 'https://github.com/acme/widget.git' });
  expect(codebaseSource('git@github.com:acme/widget.git', '/x')).toEqual({ url: 'git@github.com:acme/widget.git' });
  expect(codebaseSource('file:///srv/git/acme/widget.git', '/x')).toEqual({ url: 'file:///srv/git/acme/widget.git' });
  expect(codebaseSource('.', '/home/me/widget')).toEqual({ path: '/home/me/widget' });
  expect(codebaseSource('../other', '/home/me/widget')).toEqual({ path: '/home/me/other' });
  expect(codebaseSource('/abs/dir', '/x')).toEqual({ path: '/abs/dir' });
});

it('adds a checkout and a clone, lists them, grants and revokes env consent, removes them', async () => {
  const remote = makeBareRemote(root, 'acme', 'widget');
  const clone = cloneLocally(root, remote, 'widget');
  await writeFile(join(clone, '.env'), 'API_TOKEN=do-not-print-me\n');

  expect(await cli(['codebase', 'list'])).toMatchObject({ code: 0, stdout: 'No codebases yet. Register one with `cairn codebase add <path-or-url>`.\n' });
  const added = await cli(['codebase', 'add', '.'], clone);
  expect(added.code).toBe(0);
  expect(added.stdout).toContain(`Codebase acme/widget (repo) at ${clone}.\n`);
  expect(added.stdout).toContain('API_TOKEN');
  expect(added.stdout).not.toContain('do-not-print-me');
  expect(added.stdout).toContain('unless you allow them with `cairn codebase allow-env acme/widget`.');

  const folder = join(root, 'notes');
  await mkdir(folder);
  const cloned = await cli(['codebase', 'add', `file://${join(root, 'remotes', 'other', 'lib.git')}`]);
  expect(cloned).toMatchObject({ code: 1 });
  expect(cloned.stderr).toContain('Failed to add codebase');
  expect((await cli(['codebase', 'add', folder])).stdout).toMatch(/^Codebase local\/notes@[0-9a-f]{12} \(folder\) at /);

  const list = await cli(['codebase', 'list']);
  expect(list.stdout).toMatch(new RegExp(`^acme/widget\\s+repo\\s+${clone}$`, 'm'));
  expect(list.stdout).toMatch(/^local\/notes@[0-9a-f]{12}\s+folder\s+/m);

  expect((await cli(['codebase', 'allow-env', 'acme/widget'])).stdout).toBe(
    'Allowed the .env keys of acme/widget in its runs (secret-looking keys: API_TOKEN).\n',
  );
  expect((await cli(['codebase', 'allow-env', 'acme/widget', '--revoke'])).stdout).toMatch(/^Blocked the \.env keys of acme\/widget/);

  expect(await cli(['codebase', 'remove', 'acme/widget'])).toMatchObject({ code: 0, stdout: 'Removed codebase acme/widget.\n' });
  const gone = await cli(['codebase', 'remove', 'acme/widget']);
  expect(gone.code).toBe(1);
  expect(gone.stderr).toContain('Codebase not found');
});
