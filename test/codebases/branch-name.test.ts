import { describe, expect, it } from 'vitest';
import { checkBranchName, defaultBranchName } from '../../src/codebases/branch-name.js';
import { isSafeRunId, ownerRepoOf, runArtifactsDir, runWorktreePath } from '../../src/codebases/workspace-paths.js';
import { homePaths } from '../../src/shared/paths.js';
import { decideIsolation } from '../../src/supervisor/run/isolation-mode.js';

describe('defaultBranchName', () => {
  it('slugs the workflow name and takes the first 8 characters of the run id', () => {
    expect(defaultBranchName('Fix Tests', '8f0c2a1b-1111-2222-3333-444455556666')).toBe('cairn/fix-tests-8f0c2a1b');
  });
  it('keeps hostile workflow names out of the branch', async () => {
    for (const name of ['../../etc', '$(rm -rf ~)', '-x', 'a\nb', '..', '`id`', '']) {
      const branch = defaultBranchName(name, '8f0c2a1b-0000');
      expect(branch).toMatch(/^cairn\/[a-z0-9-]+-8f0c2a1b$/);
      await expect(checkBranchName(branch)).resolves.toBe(branch);
    }
  });
});

describe('workspace paths', () => {
  const paths = homePaths('/h');
  it('refuse ids that would step outside the codebase workspace', () => {
    expect(ownerRepoOf('../x')).toBeUndefined();
    expect(ownerRepoOf('a/b/c')).toBeUndefined();
    expect(ownerRepoOf('a/..')).toBeUndefined();
    expect(isSafeRunId('../../x')).toBe(false);
    expect(() => runWorktreePath(paths, 'acme/widget', '../../etc')).toThrow("Run id '../../etc' cannot name a folder");
    expect(() => runArtifactsDir(paths, { id: 'r1', codebase_id: '../../x' })).toThrow('is not in owner/repo form');
  });
  it('put worktrees and artifacts under the codebase workspace', () => {
    expect(runWorktreePath(paths, 'acme/widget', 'r1')).toBe('/h/workspaces/acme/widget/worktrees/r1');
    expect(runArtifactsDir(paths, { id: 'r1', codebase_id: 'acme/widget' })).toBe('/h/workspaces/acme/widget/artifacts/runs/r1');
    expect(runArtifactsDir(paths, { id: 'r1', codebase_id: null })).toBe('/h/workspaces/_runs/r1/artifacts');
  });
});

describe('decideIsolation', () => {
  const repo = { id: 'acme/widget', kind: 'repo' as const };
  const none = { worktreeEnabled: undefined };
  it('gives a git codebase a worktree by default', () => {
    expect(decideIsolation({}, none, repo)).toMatchObject({ mode: 'worktree' });
  });
  it('orders the opt-outs: workflow enabled true, mutates_checkout false, workflow enabled false, project', () => {
    expect(decideIsolation({ worktree: { enabled: true } }, { worktreeEnabled: false }, repo)).toMatchObject({ mode: 'worktree' });
    expect(decideIsolation({ mutates_checkout: false, worktree: { enabled: false } }, none, repo)).toMatchObject({ mode: 'shared' });
    expect(decideIsolation({ worktree: { enabled: false } }, none, repo)).toMatchObject({ mode: 'checkout' });
    expect(decideIsolation({}, { worktreeEnabled: false }, repo)).toMatchObject({ mode: 'checkout' });
    expect(decideIsolation({}, none, { id: 'f', kind: 'folder' })).toMatchObject({ mode: 'checkout' });
    expect(decideIsolation({ worktree: { enabled: true } }, none, { id: 'f', kind: 'folder' })).toHaveProperty('refused');
  });
});
