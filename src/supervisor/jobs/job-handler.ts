import type { ChatDeps } from '../../conversations/chat/turn-context.js';
import type { Logger } from '../../shared/log.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Job, JobKind } from '../../store/schemas/job.js';
import type { JobResultOf } from '../../store/schemas/job-results.js';
import type { Store } from '../../store/store.js';
import type { Run } from '../../store/schemas/run.js';
import type { RunScheduler } from '../run/scheduler.js';
import type { ChildRunSignals } from '../children/child-signals.js';

/**
 * The runs this supervisor drives, as job handlers use them (process/run-registry.ts keeps them):
 * the scheduler of a run driven here, and starting to drive one.
 */
export interface DrivenRuns {
  /** The lease this supervisor takes on a run it acquires. */
  readonly leaseMs: number;
  /** The run's scheduler here, waiting for one still being built; undefined when it is not driven here. */
  driving(runId: string): Promise<RunScheduler | undefined>;
  /** Starts driving a run just moved from pending to running. */
  startFresh(run: Run): Promise<RunScheduler | undefined>;
  /** Starts driving a run just moved from failed or paused back to running. */
  resume(run: Run): Promise<RunScheduler | undefined>;
  /** Takes a running run over if its owner is gone; undefined when a live supervisor has it. */
  takeOver(run: Run): Promise<RunScheduler | undefined>;
}

/** What a job handler may use: the store, the runs this supervisor drives, and who it is. */
export interface JobContext {
  store: Store;
  runs: DrivenRuns;
  supervisorId: string;
  log: Logger;
  /**
   * What chat turns need (the workflow catalog, the default assistant); a supervisor built
   * without it gives up chat jobs.
   */
  chat?: Pick<ChatDeps, 'catalog' | 'clock' | 'assistant'>;
  /** The home's paths (a deleted run's folder is removed from them). */
  paths: HomePaths;
  /** Where a child run's pause or end reaches the parent node waiting for it here. */
  childSignals?: ChildRunSignals;
}

/**
 * Carries out one kind of job. `inline` handlers are awaited by the claim loop; `background`
 * ones (a cancel that waits for process groups to die) let the loop go on meanwhile. The
 * result is stored on the job row: typed for the kinds whose requester reads it
 * (store/schemas/job-results.ts), a note for people otherwise. A handler that throws has its job
 * tried again later, a bounded number of times (see JobRunner), so handling a job twice must be
 * harmless.
 */
export interface JobHandler<K extends JobKind = JobKind> {
  readonly mode: 'inline' | 'background';
  // A property, not a method: its answer is checked against the kind's result type strictly.
  handle: (job: Job, ctx: JobContext) => Promise<JobResultOf<K>>;
  /**
   * The job is given up (it kept failing): leave what it was about in a state that says so, e.g.
   * fail the run a start job could not start. Optional; errors are logged, not retried.
   */
  giveUp?(job: Job, error: string, ctx: JobContext): Promise<void>;
}

/** The run a run job (start, cancel) is about; such a job always names one. */
export function runIdOf(job: Job): string {
  if (job.run_id === null) throw new Error(`${job.kind} job ${job.id} names no run`);
  return job.run_id;
}
