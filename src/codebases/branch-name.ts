import { CairnError, coerceError } from '../shared/errors.js';
import { git } from './git-checkout.js';

/**
 * Branch names of run worktrees. A name asked for by a client reaches `git` as an argument and
 * a worktree's metadata, so it is held to a small alphabet before git judges it: letters,
 * digits and `.` `_` `/` `+` `-`, not starting with `-` (which git would read as an option).
 * Spaces, quotes, `$(...)`, backticks and control characters never get as far as git.
 */
const allowed = /^[A-Za-z0-9._/+-]+$/;
const MAX_BRANCH_LENGTH = 200;

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

function refuse(name: string, why: string): CairnError {
  return new CairnError(
    'BRANCH_NAME_INVALID',
    `Invalid branch ${JSON.stringify(name)}: ${why}. Use letters, digits and . _ / + - (as in cairn/fix-login), or omit branch to get cairn/<workflow>-<run id>`,
  );
}

/**
 * Checks a branch name a client asked for: Cairn's alphabet first, then
 * `git check-ref-format --branch` (no repository needed). Answers the name, or throws
 * BRANCH_NAME_INVALID naming what is wrong.
 */
export async function checkBranchName(name: string): Promise<string> {
  if (name.length === 0) throw refuse(name, 'it is empty');
  if (name.length > MAX_BRANCH_LENGTH) throw refuse(name.slice(0, 40) + '…', `it is longer than ${MAX_BRANCH_LENGTH} characters`);
  if (name.startsWith('-')) throw refuse(name, 'it starts with "-"');
  if (!allowed.test(name)) throw refuse(name, 'it contains a character other than letters, digits and . _ / + -');
  let normalized: string;
  try {
    normalized = (await git().raw(['check-ref-format', '--branch', name])).trim();
  } catch (thrown) {
    const detail = coerceError(thrown).message.trim().split('\n').filter(Boolean).pop();
    throw refuse(name, `git does not accept it as a branch name${detail ? ` (${detail})` : ''}`);
  }
  // git prints the name back when it accepts it (simple-git does not always reject a quiet failure).
  if (normalized !== name) throw refuse(name, 'git does not accept it as a branch name');
  return name;
}
