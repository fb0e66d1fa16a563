import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkAdoption, worktreeRefusalText } from '../../src/codebases/worktree-adoption.js';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';

/** The contract's four ownership refusals, each met with real git repositories. */

let root: string;
let clone: string;
let otherClone: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-adopt-')));
  const url = makeBareRemote(root, 'acme', 'widget');
  clone = cloneLocally(root, url, 'widget');
  otherClone = cloneLocally(root, url, 'widget-2');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('checkAdoption', () => {
  it('adopts a worktree of this clone on the expected branch, and lets git fill an empty folder', async () => {
    const path = join(root, 'wt-ok');
    git(clone, 'worktree', 'add', '-q', '-b', 'cairn/x', path);
    await expect(checkAdoption(path, clone, 'cairn/x')).resolves.toBe('adopt');
    const empty = join(root, 'empty');
    await mkdir(empty);
    await expect(checkAdoption(empty, clone, 'cairn/x')).resolves.toBe('empty');
  });

  it('refuses a full checkout', async () => {
    await expect(checkAdoption(otherClone, clone, 'main')).rejects.toThrow(worktreeRefusalText.fullCheckout(otherClone));
    expect(worktreeRefusalText.fullCheckout('/p')).toBe('Cannot adopt /p: path contains a full git checkout, not a worktree.');
  });

  it('refuses a .git pointer that is not a git-worktree reference', async () => {
    const path = join(root, 'pointer');
    await mkdir(path);
    // A separate git dir (as `git init --separate-git-dir` or a submodule leaves) is not a worktree.
    await writeFile(join(path, '.git'), `gitdir: ${join(clone, '.git')}\n`);
    await expect(checkAdoption(path, clone, 'main')).rejects.toThrow(worktreeRefusalText.notWorktreePointer(path));
    await writeFile(join(path, '.git'), 'not a pointer at all\n');
    await expect(checkAdoption(path, clone, 'main')).rejects.toThrow(worktreeRefusalText.notWorktreePointer(path));
    expect(worktreeRefusalText.notWorktreePointer('/p')).toBe('Cannot adopt /p: .git pointer is not a git-worktree reference.');
  });

  it('refuses a worktree of a different clone, naming that clone', async () => {
    const path = join(root, 'theirs');
    git(otherClone, 'worktree', 'add', '-q', '-b', 'cairn/x', path);
    const error = await checkAdoption(path, clone, 'cairn/x').then(() => undefined, (err: Error) => err);
    expect(error?.message).toBe(
      `Worktree at ${path} belongs to a different clone (${otherClone}). Remove it from that clone or use a different codebase registration.`,
    );
  });

  it('cannot verify a folder with files but no .git, a pruned worktree record, or another branch', async () => {
    const loose = join(root, 'loose');
    await mkdir(loose);
    await writeFile(join(loose, 'file.txt'), 'x');
    await expect(checkAdoption(loose, clone, 'main')).rejects.toThrow(
      worktreeRefusalText.cannotVerify(loose, 'the folder has files but no .git entry'),
    );

    const pruned = join(root, 'pruned');
    git(clone, 'worktree', 'add', '-q', '-b', 'cairn/p', pruned);
    await rm(join(clone, '.git', 'worktrees', 'pruned'), { recursive: true });
    await expect(checkAdoption(pruned, clone, 'cairn/p')).rejects.toThrow(`Cannot verify worktree ownership at ${pruned}: `);

    const elsewhere = join(root, 'elsewhere');
    git(clone, 'worktree', 'add', '-q', '-b', 'cairn/other', elsewhere);
    await expect(checkAdoption(elsewhere, clone, 'cairn/mine')).rejects.toThrow(
      worktreeRefusalText.cannotVerify(elsewhere, "it is on branch 'cairn/other', not on branch 'cairn/mine'"),
    );
    expect(worktreeRefusalText.cannotVerify('/p', 'why')).toBe('Cannot verify worktree ownership at /p: why');
  });

  it('cannot verify a path that is not a folder', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    await expect(checkAdoption(file, clone, 'main')).rejects.toThrow(`Cannot verify worktree ownership at ${file}: ENOTDIR`);
  });
});
