import { stat } from 'node:fs/promises';
import { findBranchRef } from '../../codebases/base-branch.js';
import { listWorktrees, realpathOr } from '../../codebases/worktrees.js';
import { CairnError } from '../../shared/errors.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';

/**
 * The worktree a run worked in, as the store recorded it, checked against git before anything
 * is read from it: the path must still be one of its codebase's worktrees, on the branch
 * recorded (a path or branch in the store that git does not confirm is never used).
 */
export interface RunWorktree {
  path: string;
  branch: string;
  /** The base branch's ref (`refs/heads/<name>` or `refs/remotes/origin/<name>`) and its name; undefined when none is known. */
  base: { ref: string; name: string } | undefined;
}

export const runWorktreeText = {
  none: (runId: string) =>
    `Run ${runId} has no worktree of its own: it ran without a codebase, in the codebase's checkout itself, or shared it. ` +
    'Only a run on a codebase that made a worktree has a diff.',
  removed: (runId: string, path: string) =>
    `The worktree of run ${runId} was removed (${path}): its changes can no longer be read from it. Its branch, if kept, holds what was committed.`,
  noBase: (runId: string, branch: string) =>
    `Run ${runId} has no base branch to compare its branch '${branch}' with: none was recorded when it started, and the repository has none it can find.`,
  noCommonCommit: (runId: string, base: string) => `The branch of run ${runId} shares no commit with its base branch '${base}'.`,
} as const;

export async function findRunWorktree(store: Store, run: Run): Promise<RunWorktree> {
  if (run.codebase_id === null) throw new CairnError('RUN_WORKTREE_NOT_FOUND', runWorktreeText.none(run.id));
  const envs = await store.listIsolationEnvironments(run.codebase_id);
  const env = envs.find((e) => e.workflow_type === 'run' && e.workflow_id === run.id && e.provider === 'worktree' && e.branch_name !== null);
  const codebase = await store.getCodebase(run.codebase_id);
  if (!env) {
    // A run that worked elsewhere than its codebase's checkout had a worktree, since removed with its row.
    const hadWorktree = run.working_path !== null && codebase !== undefined && (await realpathOr(run.working_path)) !== (await realpathOr(codebase.default_cwd));
    if (hadWorktree) throw new CairnError('RUN_DIFF_UNAVAILABLE', runWorktreeText.removed(run.id, run.working_path!));
    throw new CairnError('RUN_WORKTREE_NOT_FOUND', runWorktreeText.none(run.id));
  }
  const isDir = await stat(env.working_path).then((s) => s.isDirectory(), () => false);
  if (env.status !== 'active' || !codebase || !isDir) throw new CairnError('RUN_DIFF_UNAVAILABLE', runWorktreeText.removed(run.id, env.working_path));
  const real = await realpathOr(env.working_path);
  const worktrees = await listWorktrees(codebase.default_cwd).catch(() => []);
  const known = await Promise.all(worktrees.map(async (w) => ({ path: await realpathOr(w.path), branch: w.branch })));
  if (!known.some((w) => w.path === real && w.branch === env.branch_name)) {
    throw new CairnError('RUN_DIFF_UNAVAILABLE', runWorktreeText.removed(run.id, env.working_path));
  }
  const baseName = run.metadata.base_branch?.name ?? run.metadata.isolation?.base;
  const ref = baseName === undefined ? undefined : await findBranchRef(real, baseName);
  return { path: real, branch: env.branch_name!, base: ref === undefined ? undefined : { ref, name: baseName! } };
}
