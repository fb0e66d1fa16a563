import { rm } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import type { Logger } from '../shared/log.js';
import type { HomePaths } from '../shared/paths.js';
import type { Codebase, IsolationEnvironment } from '../store/schemas/codebase.js';
import { ownerRepoOf } from './workspace-paths.js';
import { gitReason, pruneWorktrees, removeWorktree } from './worktrees.js';

/**
 * Removes the worktrees of a codebase that is being deleted: `git worktree remove --force` for
 * each, then `git worktree prune` in the checkout. A worktree git cannot remove (its folder
 * already gone, the checkout broken) is deleted from disk when it lies in Cairn's worktrees
 * folder of the codebase, and never otherwise. Branches stay in the checkout's repository.
 * Answers the paths removed.
 */
export async function removeCodebaseWorktrees(
  codebase: Codebase,
  environments: readonly IsolationEnvironment[],
  paths: HomePaths,
  log: Logger,
): Promise<string[]> {
  const removed: string[] = [];
  for (const env of environments) {
    if (env.provider !== 'worktree') continue;
    try {
      await removeWorktree(codebase.default_cwd, env.working_path);
    } catch (err) {
      if (!isInWorktreesFolder(paths, codebase.id, env.working_path)) {
        log.warn({ codebaseId: codebase.id, path: env.working_path, reason: gitReason(err) }, 'codebase.worktree_remove_failed');
        continue;
      }
      await rm(env.working_path, { recursive: true, force: true });
    }
    removed.push(env.working_path);
  }
  if (codebase.kind === 'repo') {
    await pruneWorktrees(codebase.default_cwd).catch((err: unknown) =>
      log.warn({ codebaseId: codebase.id, reason: gitReason(err) }, 'codebase.worktree_prune_failed'),
    );
  }
  if (removed.length) log.info({ codebaseId: codebase.id, worktrees: removed.length }, 'codebase.worktrees_removed');
  return removed;
}

/** True for a path strictly inside `$CAIRN_HOME/workspaces/<owner>/<repo>/worktrees/`. */
function isInWorktreesFolder(paths: HomePaths, codebaseId: string, path: string): boolean {
  const parts = ownerRepoOf(codebaseId);
  if (!parts) return false;
  const rel = relative(paths.codebaseWorktree(parts.owner, parts.repo, ''), path);
  return rel !== '' && !isAbsolute(rel) && !rel.split(sep).includes('..');
}
