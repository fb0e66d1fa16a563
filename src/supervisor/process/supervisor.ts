import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Job } from '../../store/schemas/job.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { AttemptLimiter } from './limits.js';
import { isOwnerGone } from './liveness.js';
import type { RunDriver } from '../run/run-driver.js';

/** How long a claimed job or an owned run stays ours without a heartbeat. */
export const JOB_LEASE_MS = 30_000;
export const RUN_LEASE_MS = 15_000;
export const HEARTBEAT_MS = 1_000;
/** Fallback wake-up when no change notification arrives. */
const IDLE_POLL_MS = 1_000;

/** Creates the driver for a run this supervisor has just acquired. */
export interface DriverFactory {
  /** A run just moved from pending to running. */
  fresh(run: Run): Promise<RunDriver>;
  /** A run taken over from a supervisor that is gone: rebuilds state from the event log. */
  takeover(run: Run, previousOwner: string | null): Promise<RunDriver>;
}

export interface SupervisorDeps {
  store: Store;
  drivers: DriverFactory;
  limiter: AttemptLimiter;
  perRunLimit: number;
  log: Logger;
  id?: string;
}

/**
 * The supervisor's loop: claim one job or wait, act on it, decide the next turn. Alongside it,
 * a heartbeat renews the leases of the runs it drives and looks for runs whose owner is gone.
 */
export class Supervisor {
  readonly id: string;
  private readonly drivers = new Map<string, RunDriver>();
  private readonly startedAt = new Date().toISOString();
  private state: 'running' | 'draining' | 'stopped' = 'running';
  private wake: (() => void) | undefined;
  /** A commit was seen since the loop last looked for a job (so it must look again, not sleep). */
  private changed = false;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private takingOver = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly deps: SupervisorDeps) {
    this.id = deps.id ?? `sup-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  async start(): Promise<void> {
    await this.beat();
    await this.takeOverOrphanedRuns();
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
      if (!opts.drain) for (const driver of this.drivers.values()) void driver.release(false);
      return this.stopping;
    }
    this.stopping = this.stopNow(opts.drain);
    return this.stopping;
  }

  private async stopNow(drain: boolean): Promise<void> {
    this.state = drain ? 'draining' : 'stopped';
    this.deps.log.info({ drain, runs: this.drivers.size }, 'supervisor.shutdown_started');
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.drivers.values()].map((d) => d.release(drain)));
    this.state = 'stopped';
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    await this.beat();
    this.deps.log.info({}, 'supervisor.shutdown_completed');
  }

  get activeRuns(): number {
    return this.drivers.size;
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
        await this.dispatch(job).catch((err: unknown) =>
          this.deps.log.error({ err, jobId: job.id, runId: job.run_id }, 'job.dispatch_failed'),
        );
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

  private async dispatch(job: Job): Promise<void> {
    this.deps.log.debug({ jobId: job.id, kind: job.kind, runId: job.run_id }, 'job.claimed');
    switch (job.kind) {
      case 'start_run':
        return this.finishJob(job, await this.startRun(job.run_id));
      case 'cancel_run':
        // Cancelling waits for process groups to be confirmed gone; the loop goes on meanwhile.
        void this.cancelRun(job.run_id).then(
          (result) => this.finishJob(job, result),
          (err: unknown) => this.deps.log.error({ err, runId: job.run_id }, 'run.cancel_failed'),
        );
        return;
    }
  }

  private async finishJob(job: Job, result: string): Promise<void> {
    await this.deps.store.finishJob(job.id, this.id, result);
  }

  private async startRun(runId: string): Promise<string> {
    if (this.drivers.has(runId)) return 'already running';
    const pending = await this.deps.store.getRun(runId);
    if (!pending || pending.status !== 'pending') return `ignored: run is ${pending?.status ?? 'gone'}`;
    const run = await this.deps.store.acquireRun({
      runId, ownerId: this.id, leaseMs: RUN_LEASE_MS, fromStatuses: ['pending'], status: 'running',
      events: startEvents(pending, this.id),
    });
    if (!run) return 'ignored: run changed state';
    return (await this.drive(run, () => this.deps.drivers.fresh(run))) ? 'started' : 'failed to start';
  }

  private async cancelRun(runId: string): Promise<string> {
    let driver = this.drivers.get(runId);
    if (!driver) {
      const run = await this.deps.store.getRun(runId);
      if (!run) return 'ignored: run is gone';
      if (run.status === 'pending' || run.status === 'paused') {
        const cancelled = await this.deps.store.acquireRun({
          runId, ownerId: this.id, leaseMs: RUN_LEASE_MS, fromStatuses: [run.status], status: 'cancelled',
          events: [{ run_id: runId, conversation_id: run.conversation_id, event_type: 'workflow_cancelled', step_name: null, data: { reason: 'Cancelled by user' } }],
        });
        if (cancelled) await this.deps.store.releaseRuns(this.id, [runId]);
        return cancelled ? 'cancelled' : 'ignored: run changed state';
      }
      if (run.status !== 'running') return `ignored: run is ${run.status}`;
      // A running run nobody drives (its supervisor died): take it over, then cancel it, so its
      // orphaned processes are found and killed.
      driver = await this.takeOver(run);
      if (!driver) return 'ignored: run is owned by a live supervisor';
    }
    await driver.cancel();
    return 'cancelled';
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      await this.deps.store.renewRunLeases(this.id, RUN_LEASE_MS);
      await this.takeOverOrphanedRuns();
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
        runs: this.drivers.size,
        perProvider: {},
      },
    });
  }

  /** Takes over every running run whose owner is gone (see isOwnerGone). */
  private async takeOverOrphanedRuns(): Promise<void> {
    if (this.takingOver || this.state !== 'running') return;
    this.takingOver = true;
    try {
      for (const run of await this.deps.store.listRunsNotOwnedBy(this.id, 'running')) {
        if (this.state !== 'running') break;
        await this.takeOver(run);
      }
    } finally {
      this.takingOver = false;
    }
  }

  private async takeOver(run: Run): Promise<RunDriver | undefined> {
    if (this.drivers.has(run.id)) return this.drivers.get(run.id);
    const heartbeats = new Map((await this.deps.store.listHeartbeats()).map((h) => [h.id, h]));
    if (!isOwnerGone(run, heartbeats, { now: Date.now(), hostname: hostname() })) return undefined;
    const acquired = await this.deps.store.acquireRun({
      runId: run.id, ownerId: this.id, leaseMs: RUN_LEASE_MS, fromStatuses: ['running'], status: 'running',
      previousOwner: run.owner_id, events: [],
    });
    if (!acquired) return undefined;
    this.deps.log.info({ runId: run.id, previousOwner: run.owner_id }, 'run.takeover_started');
    return this.drive(acquired, () => this.deps.drivers.takeover(acquired, run.owner_id));
  }

  /** Creates and registers the driver of a run we own. A run whose driver cannot be built (an
   * unreadable definition, a broken log) is failed with the reason rather than left running. */
  private async drive(run: Run, create: () => Promise<RunDriver>): Promise<RunDriver | undefined> {
    try {
      const driver = await create();
      this.drivers.set(run.id, driver);
      void driver.done.finally(() => this.drivers.delete(run.id));
      return driver;
    } catch (err) {
      const error = `Run could not be started: ${(err as Error).message}`;
      this.deps.log.error({ err, runId: run.id }, 'run.start_failed');
      await this.deps.store.transitionRun({
        runId: run.id, ownerId: this.id, status: 'failed', error, release: true,
        events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_failed', step_name: null, data: { error } }],
      });
      return undefined;
    }
  }
}

/** `workflow_started`, and `workflow_parse_warnings` when the definition had keys Cairn ignores
 * (the API kept them in the run's metadata when it loaded the file). */
function startEvents(run: Run, supervisorId: string): NewRunEvent[] {
  const base = { run_id: run.id, conversation_id: run.conversation_id, step_name: null };
  const events: NewRunEvent[] = [
    {
      ...base,
      event_type: 'workflow_started',
      data: { workflowName: run.workflow_name, supervisorId, workingPath: run.working_path, inputs: Object.keys(run.inputs) },
    },
  ];
  const warnings = run.metadata.parse_warnings;
  if (Array.isArray(warnings) && warnings.length > 0) {
    events.push({ ...base, event_type: 'workflow_parse_warnings', data: { warnings } });
  }
  return events;
}
