import { CairnError, coerceError } from '../shared/errors.js';
import { branchNameProblem, MAX_BRANCH_LENGTH } from '../workflow/schema/branch-syntax.js';
import { git } from './git-checkout.js';

/**
 * Branch names a client asks for: a run's worktree branch (`branch`) and its base (`baseBranch`).
 * Each reaches `git` as an argument, so it is held to Cairn's alphabet first (branch-syntax.ts),
 * then to git's own rules.
 */

/** The request field a name came in, and what to tell a client who got it wrong. */
const fields = {
  branch: 'or omit branch to get cairn/<workflow>-<run id>',
  baseBranch: 'naming a branch of the repository (as in main or release/1.2), or omit baseBranch to use the project’s base',
} as const;
export type BranchField = keyof typeof fields;

/** The branch a run gets when it asks for none: `cairn/<workflow-name-slug>-<first 8 of runId>`. */
export function defaultBranchName(workflowName: string, runId: string): string {
  return `cairn/${slugOf(workflowName, 40) || 'run'}-${slugOf(runId, 8) || 'run'}`;
}

/** Lowercase letters, digits and single dashes, at most `max` characters. */
function slugOf(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
}

function refuse(name: string, why: string, field: BranchField): CairnError {
  const example = field === 'branch' ? ' (as in cairn/fix-login)' : '';
  return new CairnError(
    'BRANCH_NAME_INVALID',
    `Invalid ${field} ${JSON.stringify(name)}: ${why}. Use letters, digits and . _ / + -${example}, ${fields[field]}`,
  );
}

/**
 * Checks a branch name a client asked for: Cairn's alphabet first, then
 * `git check-ref-format --branch` (no repository needed). Answers the name, or throws
 * BRANCH_NAME_INVALID naming what is wrong.
 */
export async function checkBranchName(name: string, field: BranchField = 'branch'): Promise<string> {
  const problem = branchNameProblem(name);
  if (problem) throw refuse(name.length > MAX_BRANCH_LENGTH ? name.slice(0, 40) + '…' : name, problem, field);
  let normalized: string;
  try {
    normalized = (await git().raw(['check-ref-format', '--branch', name])).trim();
  } catch (thrown) {
    const detail = coerceError(thrown).message.trim().split('\n').filter(Boolean).pop();
    throw refuse(name, `git does not accept it as a branch name${detail ? ` (${detail})` : ''}`, field);
  }
  // git prints the name back when it accepts it (simple-git does not always reject a quiet failure).
  if (normalized !== name) throw refuse(name, 'git does not accept it as a branch name', field);
  return name;
}
