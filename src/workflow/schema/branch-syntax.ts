/**
 * The alphabet Cairn holds a branch name to before git sees it, whoever gave the name (a run
 * request's `branch` or `baseBranch`, a project's `worktree.baseBranch`, a repository's
 * `origin/HEAD`): letters, digits and `.` `_` `/` `+` `-`, not starting with `-` (which git would
 * read as an option). Such a name is also safe text wherever `$BASE_BRANCH` is spliced: spaces,
 * quotes, `$(...)`, backticks and control characters never get that far. Pure, so a config
 * file can be checked without git; `codebases/branch-name.ts` adds git's own check.
 */

const allowed = /^[A-Za-z0-9._/+-]+$/;
export const MAX_BRANCH_LENGTH = 200;

/** What is wrong with `name` as a branch name in Cairn's alphabet, or undefined when nothing is. */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_BRANCH_LENGTH) return `it is longer than ${MAX_BRANCH_LENGTH} characters`;
  if (name.startsWith('-')) return 'it starts with "-"';
  if (!allowed.test(name)) return 'it contains a character other than letters, digits and . _ / + -';
  if (name.split('/').some((part) => part === '' || part === '.' || part === '..' || part.startsWith('.'))) {
    return 'it has an empty, "." or ".." part, or a part starting with "."';
  }
  if (name.includes('..')) return 'it contains ".."';
  return undefined;
}
