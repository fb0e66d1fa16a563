import { FaultBackoff } from '../../shared/fault-backoff.js';
import { isWorthWaitingFor } from '../../shared/store-faults.js';
import type { Job } from '../../store/schemas/job.js';
import { encodeJobResult, givenUpResult, type JobResultOf } from '../../store/schemas/job-results.js';
import { jobHandlers, type JobContext, type JobHandler } from './index.js';

/** How long a claimed job stays ours without a renewal; renewed each heartbeat while it runs. */
export const JOB_LEASE_MS = 30_000;
/** Claims of one job before it is given up: it failed, or its supervisor died, this many times. */
export const MAX_JOB_ATTEMPTS = 5;
/** The delay before a failed job is tried again: 2 s, doubling with each attempt (30 s over five). */
const FIRST_RETRY_MS = 2_000;

export interface JobRunnerOptions {
  leaseMs?: number;
  maxAttempts?: number;
  firstRetryMs?: number;
}

/**
 * Carries out the jobs the claim loop hands it: each through its kind's handler, with the
 * result recorded on the job row. Keeps the leases of the jobs still running, tries a failed
 * job again after a delay, and gives a job up, with a clear error, once it has been claimed
 * `maxAttempts` times without finishing.
 */
export class JobRunner {
  readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly firstRetryMs: number;
  private readonly running = new Map<number, Promise<void>>();
  /** Jobs whose handler is still at work: the leases worth renewing. */
  private readonly working = new Set<number>();
  /** Jobs the store refused to carry out for now (a full disk): backed off, logged once per interval. */
  private readonly storeFaults: FaultBackoff;

  constructor(
    private readonly ctx: JobContext,
    opts: JobRunnerOptions = {},
  ) {
    this.leaseMs = opts.leaseMs ?? JOB_LEASE_MS;
    this.maxAttempts = opts.maxAttempts ?? MAX_JOB_ATTEMPTS;
    this.firstRetryMs = opts.firstRetryMs ?? FIRST_RETRY_MS;
    this.storeFaults = new FaultBackoff(ctx.log, { failed: 'job.store_write_failed', recovered: 'job.store_write_recovered' });
  }

  /** Starts a claimed job; resolves when the claim loop may go on (an inline job: once it is done). */
  async dispatch(job: Job): Promise<void> {
    const { log } = this.ctx;
    log.debug({ jobId: job.id, kind: job.kind, runId: job.run_id, attempt: job.attempts }, 'job.claimed');
    // A kind this (older) supervisor does not know: the row said so, the schema could not.
    const handler = jobHandlers[job.kind] as JobHandler | undefined;
    if (!handler) {
      return this.giveUp(job, undefined, `this supervisor has no handler for '${job.kind}' jobs: it is older than the API that queued the job; run one version of Cairn`);
    }
    if (job.attempts > this.maxAttempts) {
      // The earlier claims never finished: each time, the supervisor holding the job died.
      const error =
        `claimed ${job.attempts - 1} times and never finished: the supervisor working on it stopped each time` +
        (job.last_error ? ` (last error: ${job.last_error})` : '');
      return this.giveUp(job, handler, error);
    }
    this.working.add(job.id);
    const done = this.carryOut(job, handler).finally(() => {
      this.working.delete(job.id);
      this.running.delete(job.id);
    });
    this.running.set(job.id, done);
    if (handler.mode === 'inline') await done;
  }

  /** Extends the leases of the jobs still running (a cancel waiting for process groups to die). */
  async renewLeases(): Promise<void> {
    if (this.working.size === 0) return;
    await this.ctx.store.renewJobLeases(this.ctx.supervisorId, [...this.working], this.leaseMs);
  }

  /** Resolves once every job started here has finished, failed or been given up. */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()]);
  }

  private async carryOut(job: Job, handler: JobHandler): Promise<void> {
    const { store, supervisorId, log } = this.ctx;
    let result: JobResultOf<Job['kind']>;
    try {
      result = await handler.handle(job, this.ctx);
    } catch (err) {
      const error = (err as Error).message;
      // Stop renewing first: a renewal after the write below would push the retry out to a full lease.
      this.working.delete(job.id);
      if (isWorthWaitingFor(err)) return this.deferOnStoreFault(job, err);
      if (job.attempts >= this.maxAttempts) return this.giveUp(job, handler, `failed ${job.attempts} times; last error: ${error}`);
      const retryInMs = this.firstRetryMs * 2 ** (job.attempts - 1);
      log.warn({ err, jobId: job.id, kind: job.kind, runId: job.run_id, attempt: job.attempts, retryInMs }, 'job.attempt_failed');
      await store
        .failJobAttempt(job.id, supervisorId, error, retryInMs)
        .catch((writeErr: unknown) => log.error({ err: writeErr, jobId: job.id }, 'job.attempt_record_failed'));
      return;
    }
    this.storeFaults.succeeded();
    try {
      await store.finishJob(job.id, supervisorId, encodeJobResult(job.kind, result));
      log.debug({ jobId: job.id, kind: job.kind, runId: job.run_id, result }, 'job.finished');
    } catch (err) {
      // The job is done but not marked so: its lease lapses and it is handled again, harmlessly.
      log.error({ err, jobId: job.id, kind: job.kind, runId: job.run_id }, 'job.finish_failed');
    }
  }

  /**
   * The store refused the job's writes for now (a full disk, a database held busy): not the job's
   * failure. It is tried again after the back-off, and this claim does not count against its
   * attempts, so no wait for space ever gives a job (a run's start, a cancel) up.
   */
  private async deferOnStoreFault(job: Job, err: unknown): Promise<void> {
    const retryInMs = this.storeFaults.failed(err, { jobId: job.id, kind: job.kind, runId: job.run_id });
    // If this write is refused too, the job's lease lapses and it is claimed again then.
    await this.ctx.store
      .failJobAttempt(job.id, this.ctx.supervisorId, (err as Error).message, retryInMs, { counted: false })
      .catch(() => undefined);
  }

  /** Finishes a job that will not be tried again, with an error that says why and what to do. */
  private async giveUp(job: Job, handler: JobHandler | undefined, error: string): Promise<void> {
    const { store, supervisorId, log } = this.ctx;
    const result = givenUpResult(
      job.kind,
      `${job.kind} job ${job.id} for run ${job.run_id} was given up: ${error}. ` +
        `Look for job ${job.id} in the supervisor log, fix the cause, then make the request again.`,
    );
    log.error({ jobId: job.id, kind: job.kind, runId: job.run_id, attempts: job.attempts, error }, 'job.given_up');
    try {
      await handler?.giveUp?.(job, error, this.ctx);
    } catch (err) {
      log.error({ err, jobId: job.id, runId: job.run_id }, 'job.give_up_failed');
    }
    await store
      .finishJob(job.id, supervisorId, result)
      .catch((err: unknown) => log.error({ err, jobId: job.id }, 'job.finish_failed'));
  }
}
