import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRunBaseBranch, detectBaseBranch, findBranchRef } from '../../src/codebases/base-branch.js';
import { addWorktree } from '../../src/codebases/worktrees.js';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';

/** A run's base branch as git knows it, against real repositories in a temp folder. */

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-base-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A repository with one commit on `branch` and no remote. */
function localRepo(name: string, branch: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', branch);
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'one');
  return dir;
}

describe('detectBaseBranch', () => {
  it('takes the branch origin/HEAD points at', async () => {
    const bare = makeBareRemote(root, 'acme', 'widget');
    const clone = cloneLocally(root, bare, 'widget');
    // The remote's default branch is `trunk`: the clone's origin/HEAD follows it.
    git(clone, 'push', '-q', 'origin', 'HEAD:trunk');
    git(clone, 'remote', 'set-head', 'origin', 'trunk');
    expect(await detectBaseBranch(clone)).toEqual({ name: 'trunk', source: 'origin_head' });
  });

  it('falls back to main, then master, and finds nothing in a repository with neither', async () => {
    expect(await detectBaseBranch(localRepo('m', 'main'))).toEqual({ name: 'main', source: 'main' });
    expect(await detectBaseBranch(localRepo('old', 'master'))).toEqual({ name: 'master', source: 'master' });
    expect(await detectBaseBranch(localRepo('odd', 'develop'))).toBeUndefined();
  });

  it('skips an origin/HEAD whose name Cairn could not splice safely', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'odd'), 'odd');
    git(clone, 'push', '-q', 'origin', 'HEAD:refs/heads/caf\u00e9');
    git(clone, 'fetch', '-q', 'origin');
    git(clone, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/caf\u00e9');
    expect(await detectBaseBranch(clone)).toEqual({ name: 'main', source: 'main' });
  });

  it('finds nothing in a folder that is not a repository', async () => {
    const dir = join(root, 'plain');
    mkdirSync(dir);
    expect(await detectBaseBranch(dir)).toBeUndefined();
  });
});

describe('findBranchRef', () => {
  it('prefers the local branch, else origin’s, and refuses names outside the alphabet', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    git(clone, 'push', '-q', 'origin', 'HEAD:release/1.2');
    git(clone, 'fetch', '-q', 'origin');
    expect(await findBranchRef(clone, 'main')).toBe('refs/heads/main');
    expect(await findBranchRef(clone, 'release/1.2')).toBe('refs/remotes/origin/release/1.2');
    expect(await findBranchRef(clone, 'nope')).toBeUndefined();
    expect(await findBranchRef(clone, '--upload-pack=x')).toBeUndefined();
  });
});

describe('checkRunBaseBranch', () => {
  it('accepts a branch of the repository, local or origin’s', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    git(clone, 'push', '-q', 'origin', 'HEAD:only-on-origin');
    git(clone, 'fetch', '-q', 'origin');
    await expect(checkRunBaseBranch('main', clone)).resolves.toBeUndefined();
    await expect(checkRunBaseBranch('only-on-origin', clone)).resolves.toBeUndefined();
  });

  it('refuses a missing branch, a run without a repository and hostile names, naming the field', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    await expect(checkRunBaseBranch('nope', clone)).rejects.toMatchObject({
      code: 'BASE_BRANCH_NOT_FOUND',
      message: `baseBranch 'nope' is not a branch of the repository at ${clone}: neither refs/heads/nope nor refs/remotes/origin/nope exists. Name an existing branch, or fetch it first (git fetch origin nope)`,
    });
    await expect(checkRunBaseBranch('main', undefined)).rejects.toMatchObject({ code: 'BASE_BRANCH_NOT_FOUND', message: expect.stringContaining('only to a run in a git repository') });
    const plain = join(root, 'plain');
    mkdirSync(plain);
    await expect(checkRunBaseBranch('main', plain)).rejects.toMatchObject({ code: 'BASE_BRANCH_NOT_FOUND', message: expect.stringContaining(`${plain} is not one`) });
    for (const hostile of ['--upload-pack=x', '../x', 'a\nb', '$(touch pwned)', '`id`', 'x y', 'a..b', 'x.lock', '']) {
      await expect(checkRunBaseBranch(hostile, clone), JSON.stringify(hostile)).rejects.toMatchObject({
        code: 'BRANCH_NAME_INVALID',
        message: expect.stringContaining(`Invalid baseBranch ${JSON.stringify(hostile)}`),
      });
    }
    expect(existsSync(join(clone, 'pwned'))).toBe(false);
  });
});

describe('addWorktree with a base', () => {
  it('cuts the new branch from the base (local, else origin’s), else from the checkout’s commit, and fails on a base gone since', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    // origin has `release` one commit ahead of main; the checkout has no local `release`.
    git(clone, 'checkout', '-q', '-b', 'release');
    writeFileSync(join(clone, 'r.txt'), 'r\n');
    git(clone, 'add', '-A');
    git(clone, 'commit', '-q', '-m', 'release work');
    git(clone, 'push', '-q', 'origin', 'release');
    const releaseTip = git(clone, 'rev-parse', 'HEAD').trim();
    git(clone, 'checkout', '-q', 'main');
    git(clone, 'branch', '-q', '-D', 'release');

    const made = await addWorktree(clone, join(root, 'wt1'), 'cairn/one', { base: 'release' });
    expect(made).toEqual({ commit: releaseTip, newBranch: true });
    expect(git(join(root, 'wt1'), 'rev-parse', 'HEAD').trim()).toBe(releaseTip);

    const mainTip = git(clone, 'rev-parse', 'HEAD').trim();
    expect(await addWorktree(clone, join(root, 'wt2'), 'cairn/two')).toEqual({ commit: mainTip, newBranch: true });
    await expect(addWorktree(clone, join(root, 'wt3'), 'cairn/three', { base: 'gone' })).rejects.toThrow("baseBranch 'gone' is not a branch");
  });
});
