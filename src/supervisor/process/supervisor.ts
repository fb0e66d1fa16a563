import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../shared/log.js';
import type { Job } from '../../store/schemas/job.js';
import type { Store } from '../../store/store.js';
import { jobHandlers, type JobContext } from '../jobs/index.js';
import type { SchedulerFactory } from '../run/scheduler-factory.js';
import { AttemptLimiter } from './limits.js';
import { RUN_LEASE_MS, RunRegistry } from './run-registry.js';

export { RUN_LEASE_MS } from './run-registry.js';

/** How long a claimed job stays ours without a heartbeat. */
export const JOB_LEASE_MS = 30_000;
export const HEARTBEAT_MS = 1_000;
/** Fallback wake-up when no change notification arrives. */
const IDLE_POLL_MS = 1_000;

export interface SupervisorDeps {
  store: Store;
  schedulers: SchedulerFactory;
  limiter: AttemptLimiter;
  perRunLimit: number;
  log: Logger;
  id?: string;
}

/**
 * The supervisor's loop: claim one job or wait, hand it to its kind's handler, decide the next
 * turn. Alongside it, a heartbeat renews the leases of the runs it drives and looks for runs
 * whose owner is gone.
 */
export class Supervisor {
  readonly id: string;
  private readonly runs: RunRegistry;
  private readonly jobContext: JobContext;
  private readonly startedAt = new Date().toISOString();
  private state: 'running' | 'draining' | 'stopped' = 'running';
  private wake: (() => void) | undefined;
  /** A commit was seen since the loop last looked for a job (so it must look again, not sleep). */
  private changed = false;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: SupervisorDeps) {
    this.id = deps.id ?? `sup-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.runs = new RunRegistry({ store: deps.store, factory: deps.schedulers, ownerId: this.id, log: deps.log });
    this.jobContext = { store: deps.store, runs: this.runs, supervisorId: this.id, log: deps.log };
  }

  async start(): Promise<void> {
    await this.beat();
    await this.runs.takeOverOrphanedRuns(() => this.state === 'running');
    this.unsubscribe = this.deps.store.onChange(() => {
      this.changed = true;
      this.wake?.();
    });
    this.heartbeat = setInterval(() => void this.tick(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.loop = this.claimLoop();
    this.deps.log.info({ supervisorId: this.id, limit: this.deps.limiter.limit }, 'supervisor.started');
  }

  /** Stops claiming; in-flight attempts are interrupted, or allowed to finish with `drain`.
   * A second call without `drain` while draining interrupts what is still running. */
  shutdown(opts: { drain: boolean }): Promise<void> {
    if (this.stopping) {
      if (!opts.drain) for (const scheduler of this.runs.all()) void scheduler.release(false);
      return this.stopping;
    }
    this.stopping = this.stopNow(opts.drain);
    return this.stopping;
  }

  private async stopNow(drain: boolean): Promise<void> {
    this.state = drain ? 'draining' : 'stopped';
    this.deps.log.info({ drain, runs: this.runs.size }, 'supervisor.shutdown_started');
    this.wake?.();
    await this.loop;
    await Promise.allSettled(this.runs.all().map((s) => s.release(drain)));
    this.state = 'stopped';
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    await this.beat();
    this.deps.log.info({}, 'supervisor.shutdown_completed');
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  private async claimLoop(): Promise<void> {
    while (this.state === 'running') {
      this.changed = false;
      let job: Job | undefined;
      try {
        job = await this.deps.store.claimJob(this.id, JOB_LEASE_MS);
      } catch (err) {
        this.deps.log.warn({ err }, 'supervisor.claim_failed');
      }
      if (job) {
        await this.dispatch(job);
        continue;
      }
      // A job queued while we were looking woke nobody (no one was waiting yet): look again.
      if (this.changed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, IDLE_POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Hands a claimed job to its handler and records the result on the job row. */
  private async dispatch(job: Job): Promise<void> {
    this.deps.log.debug({ jobId: job.id, kind: job.kind, runId: job.run_id }, 'job.claimed');
    const handler = jobHandlers[job.kind];
    const done = handler
      .handle(job, this.jobContext)
      .then((result) => this.deps.store.finishJob(job.id, this.id, result))
      .catch((err: unknown) => this.deps.log.error({ err, jobId: job.id, kind: job.kind, runId: job.run_id }, 'job.failed'));
    if (handler.mode === 'inline') await done;
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      await this.deps.store.renewRunLeases(this.id, RUN_LEASE_MS);
      await this.runs.takeOverOrphanedRuns(() => this.state === 'running');
    } catch (err) {
      this.deps.log.warn({ err }, 'supervisor.heartbeat_failed');
    }
  }

  private async beat(): Promise<void> {
    const limiter = this.deps.limiter;
    await this.deps.store.writeHeartbeat({
      id: this.id,
      pid: process.pid,
      hostname: hostname(),
      started_at: this.startedAt,
      heartbeat_at: new Date().toISOString(),
      state: this.state,
      concurrency: {
        limit: limiter.limit,
        perRunLimit: this.deps.perRunLimit,
        active: limiter.active,
        queued: limiter.queued,
        runs: this.runs.size,
        perProvider: {},
      },
    });
  }
}
