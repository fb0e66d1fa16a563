import { gitReason, pruneWorktrees, removeWorktree } from './worktrees.js';
import type { IsolationEnvironment } from '../store/schemas/codebase.js';
import type { Store } from '../store/store.js';

export interface WorktreeRemoval {
  /** Whether the checkout was removed from disk. */
  removed: boolean;
  detail: string;
}

/**
 * Removes an isolation environment's checkout from disk: `git worktree remove --force` in its
 * codebase's checkout, then `git worktree prune`. Only git worktrees are removed; a checkout git
 * refuses to remove is left where it is and the answer says why (never a recursive delete of a
 * path a conversation recorded).
 */
export async function removeWorktreeCheckout(store: Store, env: IsolationEnvironment): Promise<WorktreeRemoval> {
  if (env.provider !== 'worktree') {
    return { removed: false, detail: `${env.working_path} is not a git worktree; it was left on disk.` };
  }
  const codebase = await store.getCodebase(env.codebase_id);
  if (!codebase) return { removed: false, detail: `Its codebase ${env.codebase_id} is no longer registered; ${env.working_path} was left on disk.` };
  try {
    await removeWorktree(codebase.default_cwd, env.working_path);
  } catch (err) {
    return { removed: false, detail: `git could not remove ${env.working_path} (${gitReason(err)}); it was left on disk.` };
  }
  await pruneWorktrees(codebase.default_cwd).catch(() => undefined);
  return { removed: true, detail: `Its checkout at ${env.working_path} was removed (the branch ${env.branch_name ?? '(none)'} is kept).` };
}
