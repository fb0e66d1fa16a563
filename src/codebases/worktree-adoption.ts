import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CairnError, coerceError } from '../shared/errors.js';
import { git } from './git-checkout.js';
import { gitReason, realpathOr } from './worktrees.js';

/** The contract's four refusals ("Worktree ownership refusals"), word for word. */
export const worktreeRefusalText = {
  differentClone: (path: string, otherClone: string) =>
    `Worktree at ${path} belongs to a different clone (${otherClone}). Remove it from that clone or use a different codebase registration.`,
  cannotVerify: (path: string, reason: string) => `Cannot verify worktree ownership at ${path}: ${reason}`,
  fullCheckout: (path: string) => `Cannot adopt ${path}: path contains a full git checkout, not a worktree.`,
  notWorktreePointer: (path: string) => `Cannot adopt ${path}: .git pointer is not a git-worktree reference.`,
} as const;

/** `adopt`: a worktree of this clone on the expected branch; `empty`: an empty folder git may fill. */
export type AdoptionVerdict = 'adopt' | 'empty';

const refuse = (message: string) => new CairnError('WORKTREE_REFUSED', message);
const reasonOf = (thrown: unknown) => {
  const err = coerceError(thrown) as NodeJS.ErrnoException;
  return err.code ? `${err.code}: ${err.message}` : err.message;
};

/**
 * Decides whether the existing folder `path` may be used as the worktree of `clonePath` on
 * `branch` (a start retried after a crash finds the worktree it made). Throws WORKTREE_REFUSED
 * with one of the contract's texts otherwise: one clone's worktree is never used for another,
 * and a full checkout or a foreign `.git` pointer is never taken for a worktree.
 */
export async function checkAdoption(path: string, clonePath: string, branch: string): Promise<AdoptionVerdict> {
  const entries = await readdir(path).catch((err: unknown) => {
    throw refuse(worktreeRefusalText.cannotVerify(path, reasonOf(err)));
  });
  if (entries.length === 0) return 'empty';
  const dotGit = join(path, '.git');
  const info = await lstat(dotGit).catch((err: unknown) => {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the folder has files but no .git entry' : reasonOf(err);
    throw refuse(worktreeRefusalText.cannotVerify(path, reason));
  });
  if (info.isDirectory()) throw refuse(worktreeRefusalText.fullCheckout(path));
  if (!info.isFile()) throw refuse(worktreeRefusalText.cannotVerify(path, '.git is neither a file nor a directory'));
  const pointer = await readFile(dotGit, 'utf8').catch((err: unknown) => {
    throw refuse(worktreeRefusalText.cannotVerify(path, reasonOf(err)));
  });
  const match = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(pointer);
  if (!match) throw refuse(worktreeRefusalText.notWorktreePointer(path));
  const gitdir = resolve(path, match[1]!);
  // A linked worktree's gitdir is `<common git dir>/worktrees/<name>`; a submodule's or a
  // separate git dir's is not.
  if (!/[\\/]worktrees[\\/][^\\/]+[\\/]?$/.test(gitdir)) throw refuse(worktreeRefusalText.notWorktreePointer(path));

  const theirs = await realpathOr(dirname(dirname(gitdir)));
  const ours = await commonGitDir(clonePath).catch((err: unknown) => {
    throw refuse(worktreeRefusalText.cannotVerify(path, `cannot read the git directory of ${clonePath}: ${gitReason(err)}`));
  });
  if (theirs !== ours) throw refuse(worktreeRefusalText.differentClone(path, cloneOf(theirs)));

  const head = await readFile(join(gitdir, 'HEAD'), 'utf8').catch(() => {
    throw refuse(worktreeRefusalText.cannotVerify(path, `its record ${gitdir} in the clone is missing (run git worktree prune in ${clonePath})`));
  });
  const onBranch = /^ref: refs\/heads\/(.+)$/.exec(head.trim())?.[1];
  if (onBranch !== branch) {
    throw refuse(worktreeRefusalText.cannotVerify(path, `it is on ${onBranch ? `branch '${onBranch}'` : 'a detached HEAD'}, not on branch '${branch}'`));
  }
  return 'adopt';
}

/** The real path of the clone's common git directory (`<clone>/.git`, or the clone itself when bare). */
async function commonGitDir(clonePath: string): Promise<string> {
  const out = (await git(clonePath).raw(['rev-parse', '--git-common-dir'])).trim();
  return realpathOr(resolve(clonePath, out));
}

/** The clone a common git directory belongs to: its parent for `<clone>/.git`, itself when bare. */
function cloneOf(commonDir: string): string {
  return basename(commonDir) === '.git' ? dirname(commonDir) : commonDir;
}
