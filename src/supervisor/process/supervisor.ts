import { newSupervisorId } from '../../shared/supervisor-id.js';
import { hostname } from 'node:os';
import type { Logger } from '../../shared/log.js';
import { FaultBackoff, defaultFaultBackoff, type FaultBackoffPolicy } from '../../shared/fault-backoff.js';
import type { Job } from '../../store/schemas/job.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Store } from '../../store/store.js';
import { JobRunner, type JobRunnerOptions } from '../jobs/job-runner.js';
import type { JobContext } from '../jobs/job-handler.js';
import type { SchedulerFactory } from '../run/scheduler-factory.js';
import { GLOBAL_KEY } from '../run/engine-slots.js';
import type { Slots } from '../run/slots.js';
import { goneSupervisors, livenessHere } from './liveness.js';
import { RunRegistry } from './run-registry.js';
import { SelfFence } from './self-fence.js';

export { RUN_LEASE_MS } from './run-registry.js';
export { JOB_LEASE_MS } from '../jobs/job-runner.js';

export const HEARTBEAT_MS = 1_000;

export { newSupervisorId };
/** Fallback wake-up when no change notification arrives. */
const IDLE_POLL_MS = 1_000;

export interface SupervisorDeps {
  store: Store;
  schedulers: SchedulerFactory;
  /** The global limit (engine-slots.ts). */
  limiter: Slots;
  /** Per-provider limits (their live figures go into the heartbeat). */
  providerSlots?: Slots;
  perRunLimit: number;
  log: Logger;
  /** The home's paths: a deleted run's folder is removed from them. */
  paths: HomePaths;
  id?: string;
  /**
   * Lease lengths, job attempts, and the back-off and log interval of store calls that fail
   * (a full disk); the defaults suit production, tests shorten them.
   */
  timing?: {
    runLeaseMs?: number; heartbeatMs?: number; idlePollMs?: number; jobs?: JobRunnerOptions; storeFaults?: FaultBackoffPolicy;
    /**
     * Self-fencing (self-fence.ts), where other hosts may take this one's runs over (PostgreSQL):
     * past this long without a renewal, the supervisor ends its nodes and lets its runs go.
     */
    renewDeadlineMs?: number;
  };
  /** The workflow catalog and clock chat turns use. */
  chat?: JobContext['chat'];
  /** Shared with the schedulers' child-run nodes: the news of `child_run_settled` jobs. */
  childSignals?: JobContext['childSignals'];
  /** The schedules' fire loop (schedule-loop.ts), started and stopped with the supervisor. */
  schedules?: { start(): void; stop(): Promise<void> };
  /** Periodic upkeep beside the loop (delivery-retention.ts), started and stopped with the supervisor. */
  upkeep?: readonly { start(): void; stop(): Promise<void> }[];
}

/**
 * The supervisor's loop: claim one job or wait, hand it to its kind's handler, decide the next
 * turn. Alongside it, a heartbeat renews the leases of the runs and jobs it is working on, gives
 * back the jobs of supervisors that are gone, and takes over runs whose owner is gone.
 */
export class Supervisor {
  readonly id: string;
  private readonly runs: RunRegistry;
  private readonly jobs: JobRunner;
  private readonly startedAt = new Date().toISOString();
  /** What the heartbeat row says: `draining` from the first shutdown step until all work is let go. */
  private state: 'running' | 'draining' | 'stopped' = 'running';
  private wake: (() => void) | undefined;
  /** A commit was seen since the loop last looked for a job (so it must look again, not sleep). */
  private changed = false;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** Take-overs run beside the heartbeat, never in it: renewing our own leases must not wait behind them. */
  private takingOver: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopping: Promise<void> | undefined;
  /** Heartbeats (id and time) of gone supervisors whose jobs were already given back. */
  private readonly requeued = new Set<string>();
  /** Claims that fail (a full disk) are backed off and logged once per interval, never spun on. */
  private readonly claimFaults: FaultBackoff;
  /** Heartbeats run on their own timer; only their failures' log lines are spaced out. */
  private readonly beatFaults: FaultBackoff;
  /** The renewals' watchdog (absent on one host, where nobody else takes runs over). */
  private readonly fence: SelfFence | undefined;

  constructor(private readonly deps: SupervisorDeps) {
    this.id = deps.id ?? newSupervisorId();
    const faults = deps.timing?.storeFaults ?? defaultFaultBackoff;
    this.claimFaults = new FaultBackoff(deps.log, { failed: 'supervisor.claim_failed', recovered: 'supervisor.claim_recovered' }, faults);
    this.beatFaults = new FaultBackoff(deps.log, { failed: 'supervisor.heartbeat_failed', recovered: 'supervisor.heartbeat_recovered' }, faults);
    this.runs = new RunRegistry({
      store: deps.store, factory: deps.schedulers, ownerId: this.id, log: deps.log,
      ...(deps.timing?.runLeaseMs ? { leaseMs: deps.timing.runLeaseMs } : {}),
    });
    this.jobs = new JobRunner(
      { store: deps.store, runs: this.runs, supervisorId: this.id, log: deps.log, paths: deps.paths, ...(deps.chat ? { chat: deps.chat } : {}),
        ...(deps.childSignals ? { childSignals: deps.childSignals } : {}) },
      deps.timing?.jobs,
    );
    const deadlineMs = deps.timing?.renewDeadlineMs;
    this.fence = deadlineMs === undefined ? undefined : new SelfFence({ deadlineMs, log: deps.log, fence: () => this.runs.fenceAll() });
  }

  async start(): Promise<void> {
    await this.beat();
    await this.requeueJobsOfGoneSupervisors();
    await this.runs.takeOverOrphanedRuns(() => this.state === 'running');
    this.unsubscribe = this.deps.store.onChange(() => {
      this.changed = true;
      this.wake?.();
    });
    this.heartbeat = setInterval(() => {
      this.ticking ??= this.tickWithin().finally(() => (this.ticking = undefined));
    }, this.deps.timing?.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    this.fence?.start();
    this.loop = this.claimLoop();
    this.deps.schedules?.start();
    for (const task of this.deps.upkeep ?? []) task.start();
    this.deps.log.info({ supervisorId: this.id, limit: this.deps.limiter.limitOf(GLOBAL_KEY) }, 'supervisor.started');
  }

  /**
   * Stops claiming; in-flight attempts are interrupted, or allowed to finish with `drain`.
   * A second call without `drain` while draining interrupts what is still running.
   * `closeWorkers` (the worker pool's close) runs before the final `stopped` heartbeat.
   */
  shutdown(opts: { drain: boolean; closeWorkers?: () => Promise<void> }): Promise<void> {
    if (this.stopping) {
      if (!opts.drain) this.runs.interruptAll();
      return this.stopping;
    }
    this.stopping = this.stopNow(opts.drain, opts.closeWorkers);
    return this.stopping;
  }

  /**
   * The order matters: `stopped` tells other supervisors this one is gone (they take its runs
   * and jobs at once), so it is written only after every run is released with its attempts
   * settled (their process groups confirmed gone), every job has ended and the workers are
   * closed. If closing the workers fails, the heartbeat is left to go stale instead.
   */
  private async stopNow(drain: boolean, closeWorkers?: () => Promise<void>): Promise<void> {
    this.state = 'draining';
    this.deps.log.info({ drain, runs: this.runs.size }, 'supervisor.shutdown_started');
    this.wake?.();
    // No new fires while the runs are let go.
    await this.deps.schedules?.stop();
    await Promise.all((this.deps.upkeep ?? []).map((task) => task.stop()));
    await this.loop;
    await this.runs.releaseAll(drain);
    await this.jobs.settled();
    clearInterval(this.heartbeat);
    this.fence?.stop();
    await this.ticking;
    await this.takingOver;
    this.unsubscribe?.();
    await closeWorkers?.();
    this.state = 'stopped';
    await this.beat();
    this.deps.log.info({}, 'supervisor.shutdown_completed');
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  private async claimLoop(): Promise<void> {
    while (this.state === 'running') {
      this.changed = false;
      if (this.fence?.fenced) {
        // Cut off (or paused) past the renew deadline: nothing new starts here until it is lifted.
        await this.pause(this.deps.timing?.idlePollMs ?? IDLE_POLL_MS);
        continue;
      }
      let job: Job | undefined;
      try {
        job = await this.deps.store.claimJob(this.id, this.jobs.leaseMs);
        this.claimFaults.succeeded();
      } catch (err) {
        // Never looked again at once: a claim refused by a full disk still touches the database
        // files, the change watch wakes the loop for that, and it would spin on its own failure.
        await this.pause(this.claimFaults.failed(err));
        continue;
      }
      if (job) {
        await this.jobs.dispatch(job);
        continue;
      }
      // A job queued while we were looking woke nobody (no one was waiting yet): look again.
      if (this.changed) continue;
      // A job waiting for its moment (a sleeping run's wake-up) makes no commit when it comes
      // due: the wait ends then at the latest.
      const dueInMs = await this.deps.store.msUntilNextDueJob().catch(() => undefined);
      if (this.changed) continue;
      // A shutdown that came while the store was asked found no wait to cut short: see it now,
      // or the loop would sleep a whole poll before it ends.
      if (this.state !== 'running') break;
      await new Promise<void>((resolve) => {
        const idlePollMs = this.deps.timing?.idlePollMs ?? IDLE_POLL_MS;
        const timer = setTimeout(resolve, Math.min(idlePollMs, dueInMs ?? idlePollMs));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Waits `ms`, cut short only by shutdown (a commit seen meanwhile does not end it). */
  private async pause(ms: number): Promise<void> {
    if (this.state !== 'running') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        if (this.state === 'running') return;
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /**
   * One heartbeat, waited for no longer than the renew deadline: a renewal stuck on a connection
   * the network dropped goes on alone, and the next beat tries again beside it.
   */
  private tickWithin(): Promise<void> {
    const deadlineMs = this.deps.timing?.renewDeadlineMs;
    if (deadlineMs === undefined) return this.tick();
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    return Promise.race([this.tick(), givenUp]).finally(() => clearTimeout(timer));
  }

  private async tick(): Promise<void> {
    try {
      const sentAt = this.fence?.renewalSent();
      await this.beat();
      // Only the runs a live scheduler drives: a run we own but no longer drive lapses and is taken over.
      const driven = this.runs.runIds();
      await this.deps.store.renewRunLeases(this.id, driven, this.runs.leaseMs);
      // A run's worktree lock lives exactly as long as its lease: renewed together, lapsed together.
      await this.deps.store.renewIsolationLocks(this.id, driven, this.runs.leaseMs);
      if (this.fence && sentAt !== undefined) {
        this.fence.renewed(sentAt);
        if (!this.fence.fenced) this.runs.unfence();
      }
      await this.jobs.renewLeases();
      if (this.state !== 'running') return;
      if (this.fence?.fenced) return this.beatFaults.succeeded();
      if (await this.requeueJobsOfGoneSupervisors()) this.wake?.();
      // Not awaited: taking over many runs (each waiting out its orphans' kill grace) could take
      // longer than our own leases, which the next ticks must go on renewing meanwhile.
      this.takingOver ??= this.runs
        .takeOverOrphanedRuns(() => this.state === 'running')
        .catch((err: unknown) => {
          this.beatFaults.failed(err);
        })
        .finally(() => (this.takingOver = undefined));
      this.beatFaults.succeeded();
    } catch (err) {
      this.beatFaults.failed(err);
    }
  }

  /** Gives the jobs held by supervisors that are gone back to the queue, rather than wait out their leases. */
  private async requeueJobsOfGoneSupervisors(): Promise<number> {
    // A supervisor that is gone claims nothing new, so its jobs need giving back once; one whose
    // heartbeat moved on since (it was only slow) is looked at again.
    const beats = (await this.deps.store.listHeartbeats()).filter((b) => !this.requeued.has(`${b.id}@${b.heartbeat_at}`));
    const gone = goneSupervisors(beats, this.id, livenessHere());
    if (gone.length === 0) return 0;
    const requeued = await this.deps.store.requeueJobsOf(gone);
    for (const b of beats) if (gone.includes(b.id)) this.requeued.add(`${b.id}@${b.heartbeat_at}`);
    if (requeued) this.deps.log.info({ supervisors: gone, jobs: requeued }, 'supervisor.jobs_requeued');
    return requeued;
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
        limit: limiter.limitOf(GLOBAL_KEY)!,
        perRunLimit: this.deps.perRunLimit,
        active: limiter.holders(GLOBAL_KEY),
        // Attempts waiting for a global slot, plus ready nodes held back by their run's own limit.
        queued: limiter.waiting(GLOBAL_KEY) + this.runs.all().reduce((sum, run) => sum + run.queuedNodes, 0),
        runs: this.runs.size,
        perProvider: this.deps.providerSlots?.stats() ?? {},
      },
    });
  }
}
