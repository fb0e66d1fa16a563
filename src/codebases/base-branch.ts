import { CheckRepoActions } from 'simple-git';
import { CairnError } from '../shared/errors.js';
import { branchNameProblem } from '../workflow/schema/branch-syntax.js';
import { checkBranchName } from './branch-name.js';
import { git } from './git-checkout.js';

/**
 * A run's base branch (`$BASE_BRANCH`, and the start of its worktree's new branch when the
 * request names one), as git knows it. The order it is looked for in lives in the supervisor
 * (`supervisor/run/run-variables.ts`); what git says is here.
 */

/** Where a run's base came from, in the order they are tried. */
export const baseBranchSources = ['request', 'project_config', 'codebase', 'origin_head', 'main', 'master'] as const;
export type BaseBranchSource = (typeof baseBranchSources)[number];

export interface ResolvedBaseBranch {
  name: string;
  source: BaseBranchSource;
}

/** Texts of a run request's `baseBranch` refusals (400); clients may match on them. */
export const baseBranchText = {
  noRepository: (dir: string | undefined) =>
    dir === undefined
      ? 'baseBranch applies only to a run in a git repository: pass codebaseId, or a cwd inside a git checkout'
      : `baseBranch applies only to a run in a git repository, and ${dir} is not one: pass codebaseId, or a cwd inside a git checkout`,
  notFound: (base: string, dir: string) =>
    `baseBranch '${base}' is not a branch of the repository at ${dir}: neither refs/heads/${base} nor ` +
    `refs/remotes/origin/${base} exists. Name an existing branch, or fetch it first (git fetch origin ${base})`,
} as const;

/**
 * The ref `name` stands for in the repository at `dir`: the local branch, else origin's
 * remote-tracking branch; undefined when neither exists (or the name is not one Cairn passes to git).
 */
export async function findBranchRef(dir: string, name: string): Promise<string | undefined> {
  if (branchNameProblem(name) !== undefined) return undefined;
  for (const ref of [`refs/heads/${name}`, `refs/remotes/origin/${name}`]) {
    // simple-git resolves a quiet failure with no output, so the answer is the output (a commit or nothing).
    const out = await git(dir)
      .raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
      .catch(() => '');
    if (out.trim() !== '') return ref;
  }
  return undefined;
}

/**
 * Git's own idea of the repository's base: the branch `origin/HEAD` points at, else `main`, else
 * `master` (each as a local branch or origin's); undefined when none is there.
 */
export async function detectBaseBranch(dir: string): Promise<ResolvedBaseBranch | undefined> {
  const head = (
    await git(dir)
      .raw(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'])
      .catch(() => '')
  ).trim();
  const prefix = 'refs/remotes/origin/';
  if (head.startsWith(prefix)) {
    const name = head.slice(prefix.length);
    // A name outside Cairn's alphabet could not be spliced safely; the next candidates are tried.
    if (branchNameProblem(name) === undefined) return { name, source: 'origin_head' };
  }
  for (const name of ['main', 'master'] as const) {
    if (await findBranchRef(dir, name)) return { name, source: name };
  }
  return undefined;
}

/**
 * Checks a run request's `baseBranch` against the repository the run will work on (`dir`: the
 * codebase's checkout, else the request's cwd): a name git accepts, naming a branch that exists
 * there, locally or as `origin/<name>`. Throws a 400-class CairnError naming the problem.
 */
export async function checkRunBaseBranch(base: string, dir: string | undefined): Promise<void> {
  await checkBranchName(base, 'baseBranch');
  if (dir === undefined) throw new CairnError('BASE_BRANCH_NOT_FOUND', baseBranchText.noRepository(undefined));
  if (!(await isInGitTree(dir))) throw new CairnError('BASE_BRANCH_NOT_FOUND', baseBranchText.noRepository(dir));
  if ((await findBranchRef(dir, base)) === undefined) throw new CairnError('BASE_BRANCH_NOT_FOUND', baseBranchText.notFound(base, dir));
}

async function isInGitTree(dir: string): Promise<boolean> {
  try {
    return await git(dir).checkIsRepo(CheckRepoActions.IN_TREE);
  } catch {
    // simple-git refuses a folder that does not exist before it runs git.
    return false;
  }
}
