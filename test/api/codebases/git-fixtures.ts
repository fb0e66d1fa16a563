import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Real git, no global config needed: identity on the command line, no network. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A bare remote `<root>/remotes/<owner>/<repo>.git` with one commit on main; answers its file:// URL. */
export function makeBareRemote(root: string, owner: string, repo: string, files: Record<string, string> = { 'README.md': 'hi\n' }): string {
  const bare = join(root, 'remotes', owner, `${repo}.git`);
  mkdirSync(bare, { recursive: true });
  git(bare, 'init', '--bare', '-q');
  const seed = join(root, 'seed', owner, repo);
  mkdirSync(seed, { recursive: true });
  git(seed, 'init', '-q');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(seed, name), text);
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
