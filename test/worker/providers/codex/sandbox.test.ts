import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexSandbox, gitDirsOf } from '../../../../src/worker/providers/codex/sandbox.js';
import { scratch } from '../agent-harness.js';
import { makeRepo, makeWorktree } from './cli.js';

/**
 * The folders a `workspace` Codex may write besides its working directory, from real git
 * repositories: the git directory (Codex keeps `.git` read-only inside a writable root, and a
 * commit writes there), a worktree's own and common ones, nothing outside a repository, and
 * nothing a forged `.git` file points at.
 */

let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(() => dir.cleanup());

describe('gitDirsOf', () => {
  it("finds a checkout's .git from any folder inside it", async () => {
    const repo = realpathSync(makeRepo(join(dir.dir, 'repo')));
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    expect(await gitDirsOf(repo)).toEqual([join(repo, '.git')]);
    expect(await gitDirsOf(join(repo, 'src', 'deep'))).toEqual([join(repo, '.git')]);
  });

  it("finds a worktree's own git directory and the main checkout's common one", async () => {
    const repo = realpathSync(makeRepo(join(dir.dir, 'repo')));
    const worktree = makeWorktree(repo, join(dir.dir, 'wt'), 'feature');
    expect(await gitDirsOf(worktree)).toEqual([join(repo, '.git', 'worktrees', 'wt'), join(repo, '.git')]);
  });

  it('gives nothing outside a repository, and nothing for a .git file that points at a folder that is not a git directory', async () => {
    const plain = join(dir.dir, 'plain');
    mkdirSync(plain);
    expect(await gitDirsOf(plain)).toEqual([]);
    const forged = join(dir.dir, 'forged');
    mkdirSync(forged);
    writeFileSync(join(forged, '.git'), `gitdir: ${dir.dir}\n`);
    expect(await gitDirsOf(forged)).toEqual([]);
  });
});

describe('codexSandbox', () => {
  it('maps each level onto a Codex sandbox mode; only workspace has writable roots', async () => {
    const repo = realpathSync(makeRepo(join(dir.dir, 'repo')));
    const tmp = join(dir.dir, 'tmp');
    expect(await codexSandbox('read_only', repo, ['/artifacts'], tmp)).toEqual({ mode: 'read-only', writableRoots: [], mcpApproval: 'writes' });
    expect(await codexSandbox('full', repo, ['/artifacts'], tmp)).toEqual({ mode: 'danger-full-access', writableRoots: [], mcpApproval: 'approve' });
    expect(await codexSandbox('workspace', repo, ['/artifacts', 'relative-out'], tmp)).toEqual({
      mode: 'workspace-write',
      writableRoots: ['/artifacts', join(repo, 'relative-out'), tmp, join(repo, '.git')],
      mcpApproval: 'approve',
    });
  });
});
