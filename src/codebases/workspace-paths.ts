import { CairnError } from '../shared/errors.js';
import type { HomePaths } from '../shared/paths.js';

/**
 * The paths of a codebase's workspace that come from ids: a codebase id (`owner/repo`) and a
 * run id. Each piece must be one plain path segment, so no id can name a path outside
 * `$CAIRN_HOME/workspaces/<owner>/<repo>/`.
 */

const segment = /^[A-Za-z0-9._@+-]+$/;

function isSafeSegment(text: string): boolean {
  return text.length > 0 && text.length <= 200 && segment.test(text) && text !== '.' && text !== '..';
}

/** `owner/repo` split in two, or undefined when the id is not in that form. */
export function ownerRepoOf(codebaseId: string): { owner: string; repo: string } | undefined {
  const parts = codebaseId.split('/');
  if (parts.length !== 2 || !parts.every(isSafeSegment)) return undefined;
  return { owner: parts[0]!, repo: parts[1]! };
}

/** A run id usable as a folder name (the API makes UUIDs; anything else is refused). */
export function isSafeRunId(runId: string): boolean {
  return /^[A-Za-z0-9-]{1,100}$/.test(runId);
}

function requireParts(codebaseId: string, runId: string): { owner: string; repo: string } {
  const parts = ownerRepoOf(codebaseId);
  if (!parts) throw new CairnError('VALIDATION_FAILED', `Codebase id '${codebaseId}' is not in owner/repo form`);
  if (!isSafeRunId(runId)) throw new CairnError('VALIDATION_FAILED', `Run id '${runId}' cannot name a folder`);
  return parts;
}

/** `$CAIRN_HOME/workspaces/<owner>/<repo>/worktrees/<runId>`: the worktree of one run. */
export function runWorktreePath(paths: HomePaths, codebaseId: string, runId: string): string {
  const { owner, repo } = requireParts(codebaseId, runId);
  return paths.codebaseWorktree(owner, repo, runId);
}

/**
 * The run's `$ARTIFACTS_DIR`: `$CAIRN_HOME/workspaces/<owner>/<repo>/artifacts/runs/<runId>/`
 * for a run on a codebase, `$CAIRN_HOME/workspaces/_runs/<runId>/artifacts` for one without.
 */
export function runArtifactsDir(paths: HomePaths, run: { id: string; codebase_id: string | null }): string {
  if (run.codebase_id === null) return paths.runArtifacts(run.id);
  const { owner, repo } = requireParts(run.codebase_id, run.id);
  return paths.codebaseRunArtifacts(owner, repo, run.id);
}

/** The `$STATE_DIR` of runs on a codebase: `$CAIRN_HOME/workspaces/<owner>/<repo>/state`, shared by all of them. */
export function codebaseStateDir(paths: HomePaths, codebaseId: string): string {
  const parts = ownerRepoOf(codebaseId);
  if (!parts) throw new CairnError('VALIDATION_FAILED', `Codebase id '${codebaseId}' is not in owner/repo form`);
  return paths.codebaseState(parts.owner, parts.repo);
}
