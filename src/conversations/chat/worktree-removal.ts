import type { IsolationEnvironment } from '../../store/schemas/codebase.js';

export interface WorktreeRemoval {
  /** Whether the checkout was removed from disk. */
  removed: boolean;
  detail: string;
}

/**
 * Removes an isolation environment's checkout from disk (`git worktree remove`). The worktree
 * engine owns git worktrees and fills this in; until then the record is marked destroyed by the
 * caller and the checkout is left where it is, and the answer says so.
 */
export async function removeWorktreeCheckout(env: IsolationEnvironment): Promise<WorktreeRemoval> {
  return {
    removed: false,
    detail: `The checkout at ${env.working_path} was left on disk: removing worktree checkouts comes with worktree isolation in a later version.`,
  };
}
