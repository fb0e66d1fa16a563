import type { Logger } from '../../shared/log.js';
import type { Job } from '../../store/schemas/job.js';
import type { Store } from '../../store/store.js';
import type { RunRegistry } from '../process/run-registry.js';

/** What a job handler may use: the store, the runs this supervisor drives, and who it is. */
export interface JobContext {
  store: Store;
  runs: RunRegistry;
  supervisorId: string;
  log: Logger;
}

/**
 * Carries out one kind of job. `inline` handlers are awaited by the claim loop; `background`
 * ones (a cancel that waits for process groups to die) let the loop go on meanwhile. The
 * result string is stored on the job row.
 */
export interface JobHandler {
  readonly mode: 'inline' | 'background';
  handle(job: Job, ctx: JobContext): Promise<string>;
}
