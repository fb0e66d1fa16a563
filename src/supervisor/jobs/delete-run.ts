import { rm } from 'node:fs/promises';
import type { HomePaths } from '../../shared/paths.js';
import { terminalRunStatuses, type Run } from '../../store/schemas/run.js';
import { runArtifactsDir } from '../../codebases/workspace-paths.js';
import { runIdOf, type JobHandler } from './job-handler.js';

/** A run id that is one plain path segment: the only kind whose folder is ever removed. */
const safeRunId = /^[A-Za-z0-9_-]+$/;

/**
 * `delete_run`: removes a terminal run: its folder under the home (scratch working directory and
 * artifacts) first, then the run row with its events and jobs in one transaction, so a supervisor
 * that dies in between leaves a run whose delete, claimed again, finishes. A project directory
 * the run worked in is the user's and is never touched, nor is a run's worktree. Deleting a run that is gone is done.
 */
export const deleteRunJob: JobHandler<'delete_run'> = {
  mode: 'inline',
  async handle(job, { store, paths }) {
    const run = await store.getRun(runIdOf(job));
    if (!run) return 'deleted';
    if (!terminalRunStatuses.includes(run.status)) return `ignored: run is ${run.status}`;
    if (safeRunId.test(run.id)) {
      await rm(paths.runFolder(run.id), { recursive: true, force: true });
      // A run on a codebase keeps its artifacts beside the codebase's; its worktree (and branch)
      // stay: they hold the run's work, and go with /worktree remove or the codebase's DELETE.
      const artifacts = run.codebase_id !== null ? codebaseArtifactsOf(paths, run) : undefined;
      if (artifacts) await rm(artifacts, { recursive: true, force: true });
    }
    return (await store.deleteRun(run.id, terminalRunStatuses)) ? 'deleted' : 'ignored: run changed state';
  },
};

/** The run's artifacts folder beside its codebase's; undefined when the ids cannot name one. */
function codebaseArtifactsOf(paths: HomePaths, run: Run): string | undefined {
  try {
    return runArtifactsDir(paths, run);
  } catch {
    return undefined;
  }
}
