import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Store } from '../../../src/store/store.js';
import type { TempHome } from '../../helpers/temp-home.js';

/** Real git, no global config needed: identity on the command line, no network. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A bare remote `<root>/remotes/<owner>/<repo>.git` with one commit on main holding `files` (paths may have folders); answers its file:// URL. */
export function makeBareRemote(root: string, owner: string, repo: string, files: Record<string, string> = { 'README.md': 'hi\n' }): string {
  const bare = join(root, 'remotes', owner, `${repo}.git`);
  mkdirSync(bare, { recursive: true });
  git(bare, 'init', '--bare', '-q');
  const seed = join(root, 'seed', owner, repo);
  mkdirSync(seed, { recursive: true });
  git(seed, 'init', '-q');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(seed, name)), { recursive: true });
    writeFileSync(join(seed, name), text);
  }
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'seed');
  git(seed, 'push', '-q', bare, 'HEAD:main');
  git(bare, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  return pathToFileURL(bare).href;
}

/** A local clone of `url` in `<root>/<name>` (a checkout the user made, not Cairn). */
export function cloneLocally(root: string, url: string, name: string): string {
  const dir = join(root, name);
  git(root, 'clone', '-q', url, dir);
  return dir;
}

/**
 * A temp folder with a bare remote `acme/widget` and the user's clone of it, registered in the
 * home's store as codebase `acme/widget` (a clean env scan); removed with the home.
 */
export async function registeredWidgetClone(home: TempHome, prefix: string): Promise<{ root: string; clone: string; store: Store }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  home.defer(() => rm(root, { recursive: true, force: true }));
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  const store = home.openStore();
  await store.registerCodebase({
    id: 'acme/widget', name: 'acme/widget', repository_url: null, default_cwd: clone, default_branch: 'main',
    kind: 'repo', managed: false, env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
  return { root, clone, store };
}
