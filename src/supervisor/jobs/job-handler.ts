import type { Logger } from '../../shared/log.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Job } from '../../store/schemas/job.js';
import type { Store } from '../../store/store.js';
import type { RunRegistry } from '../process/run-registry.js';

/** What a job handler may use: the store, the runs this supervisor drives, and who it is. */
export interface JobContext {
  store: Store;
  runs: RunRegistry;
  supervisorId: string;
  log: Logger;
  /** The home's paths (a deleted run's folder is removed from them). */
  paths: Pick<HomePaths, 'runFolder'>;
}

/**
 * Carries out one kind of job. `inline` handlers are awaited by the claim loop; `background`
 * ones (a cancel that waits for process groups to die) let the loop go on meanwhile. The
 * result string is stored on the job row. A handler that throws has its job tried again later,
 * a bounded number of times (see JobRunner), so handling a job twice must be harmless.
 */
export interface JobHandler {
  readonly mode: 'inline' | 'background';
  handle(job: Job, ctx: JobContext): Promise<string>;
  /**
   * The job is given up (it kept failing): leave what it was about in a state that says so, e.g.
   * fail the run a start job could not start. Optional; errors are logged, not retried.
   */
  giveUp?(job: Job, error: string, ctx: JobContext): Promise<void>;
}
