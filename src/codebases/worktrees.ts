import { realpath } from 'node:fs/promises';
import { coerceError } from '../shared/errors.js';
import { baseBranchText, findBranchRef } from './base-branch.js';
import { git } from './git-checkout.js';

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  /** `refs/heads/<name>` shortened to `<name>`; null when detached or bare. */
  branch: string | null;
}

/** The last non-empty line of a git failure: the line that says what went wrong. */
export function gitReason(thrown: unknown): string {
  return coerceError(thrown).message.trim().split('\n').filter(Boolean).pop() ?? 'git failed';
}

/** The worktrees of a checkout, its main one first. */
export async function listWorktrees(checkout: string): Promise<WorktreeEntry[]> {
  const out = await git(checkout).raw(['worktree', 'list', '--porcelain', '-z']);
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), branch: null };
      entries.push(current);
    } else if (field.startsWith('branch ') && current) {
      current.branch = field.slice('branch '.length).replace(/^refs\/heads\//, '');
    }
  }
  return entries;
}

/** True when `refs/heads/<branch>` exists in the checkout's repository. */
export async function branchExists(checkout: string, branch: string): Promise<boolean> {
  // simple-git resolves a failing command that printed nothing to stderr, so the answer is read
  // from the output (the commit, or nothing), not from the exit code.
  const out = await git(checkout)
    .raw(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])
    .catch(() => '');
  return out.trim() !== '';
}

/**
 * Creates a worktree at `path` on `branch`: the existing local branch when there is one, else a
 * new branch cut from `base` (its local branch, else `origin/<base>`) when one is given, else
 * from the checkout's current commit. Answers the commit it starts from.
 */
export async function addWorktree(
  checkout: string,
  path: string,
  branch: string,
  opts: { base?: string | undefined } = {},
): Promise<{ commit: string; newBranch: boolean }> {
  const client = git(checkout);
  if (await branchExists(checkout, branch)) {
    const commit = (await client.raw(['rev-parse', '--verify', '--end-of-options', `refs/heads/${branch}^{commit}`])).trim();
    await client.raw(['worktree', 'add', '--quiet', path, branch]);
    return { commit, newBranch: false };
  }
  let start = 'HEAD';
  if (opts.base !== undefined) {
    const ref = await findBranchRef(checkout, opts.base);
    // The API checked the base when it queued the run; a branch deleted since fails the start, saying so.
    if (ref === undefined) throw new Error(baseBranchText.notFound(opts.base, checkout));
    start = ref;
  }
  const commit = (await client.raw(['rev-parse', '--verify', '--end-of-options', `${start}^{commit}`])).trim();
  await client.raw(['worktree', 'add', '--quiet', '-b', branch, path, commit]);
  return { commit, newBranch: true };
}

/** `git worktree remove --force --force <path>` (a locked or dirty worktree too). */
export async function removeWorktree(checkout: string, path: string): Promise<void> {
  await git(checkout).raw(['worktree', 'remove', '--force', '--force', path]);
}

/** `git worktree prune`: forgets worktrees whose folders are gone. */
export async function pruneWorktrees(checkout: string): Promise<void> {
  await git(checkout).raw(['worktree', 'prune']);
}

/** The real path, or the path itself when it cannot be resolved (gone). */
export async function realpathOr(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}
