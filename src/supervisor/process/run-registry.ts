import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { SchedulerFactory } from '../run/scheduler-factory.js';
import type { RunScheduler } from '../run/scheduler.js';
import { isOwnerGone, livenessHere } from './liveness.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { FaultBackoff } from '../../shared/fault-backoff.js';
import { isWorthWaitingFor } from '../../shared/store-faults.js';

/** How long an owned run stays ours without a renewal. */
export const RUN_LEASE_MS = 15_000;

/** What the record of an attempt ended by a self-fence says. */
const FENCED_TEXT =
  'Interrupted: the supervisor could not renew its lease on the run in time (cut off from the database), so it ended the node before another could take the run over; the node will run again when the run continues';

export interface RunRegistryDeps {
  store: Store;
  factory: SchedulerFactory;
  ownerId: string;
  log: Logger;
  /** The lease taken on a run when it is acquired (RUN_LEASE_MS unless a test shortens it). */
  leaseMs?: number;
}

/**
 * The runs this supervisor drives, one scheduler each: acquiring a run (fresh or taken over
 * from a supervisor that is gone), and letting go of it when its scheduler is done. A run whose
 * cancel was requested is never resumed by a take-over: it is cancelled.
 */
export class RunRegistry {
  private readonly schedulers = new Map<string, RunScheduler>();
  /** Runs acquired whose scheduler is being built (a take-over may wait out orphans' kill grace). */
  private readonly building = new Map<string, Promise<RunScheduler | undefined>>();
  private takingOver = false;
  private closed = false;
  /** Self-fenced (self-fence.ts): a run acquired meanwhile is let go before it launches anything. */
  private fenced = false;
  readonly leaseMs: number;
  /** Runs whose start the store refused for now (a full disk): logged once per interval. */
  private readonly deferredStarts: FaultBackoff;

  constructor(private readonly deps: RunRegistryDeps) {
    this.leaseMs = deps.leaseMs ?? RUN_LEASE_MS;
    this.deferredStarts = new FaultBackoff(deps.log, { failed: 'run.start_deferred', recovered: 'run.start_recovered' });
  }

  get size(): number {
    return this.schedulers.size;
  }

  get(runId: string): RunScheduler | undefined {
    return this.schedulers.get(runId);
  }

  /** The run's scheduler here, waiting for one still being built; undefined when we do not drive it. */
  async driving(runId: string): Promise<RunScheduler | undefined> {
    return this.schedulers.get(runId) ?? (await this.building.get(runId));
  }

  /** Ids of the runs driven here (or about to be): the only leases worth renewing. */
  runIds(): string[] {
    return [...new Set([...this.schedulers.keys(), ...this.building.keys()])];
  }

  all(): RunScheduler[] {
    return [...this.schedulers.values()];
  }

  /** Starts driving a run this supervisor has just moved from pending to running. */
  startFresh(run: Run): Promise<RunScheduler | undefined> {
    return this.drive(run, () => this.deps.factory.fresh(run));
  }

  /**
   * Starts driving a run this supervisor has just moved from failed or paused back to running (a
   * resume, or a gate's answer): its state is rebuilt from its events, as at a take-over with
   * nobody to take from; a resume's `workflow_resumed` starts a new pass (see restoreRun).
   */
  resume(run: Run): Promise<RunScheduler | undefined> {
    return this.drive(run, () => this.deps.factory.resumed(run));
  }

  /**
   * Takes over every running run whose owner is gone (see isOwnerGone), while `keepGoing()`.
   * That includes a run this supervisor owns but no longer drives, once its lease has run out.
   *
   * In two steps: each run is restored in turn (its orphaned process groups killed), and none
   * launches anything until every one of them has been: the processes a dead supervisor left
   * hold their places (the global and provider limits, the runs' own) until they are gone, so a
   * run taken over first never runs beside the orphans of one taken over after it.
   */
  async takeOverOrphanedRuns(keepGoing: () => boolean): Promise<void> {
    if (this.takingOver || !keepGoing()) return;
    this.takingOver = true;
    let allGone!: () => void;
    const everyOrphanGone = new Promise<void>((resolve) => (allGone = resolve));
    const takenOver: Promise<unknown>[] = [];
    try {
      for (const run of await this.deps.store.listRunsNotLeasedBy(this.deps.ownerId, 'running')) {
        if (!keepGoing()) break;
        if (this.schedulers.has(run.id) || this.building.has(run.id)) continue;
        let restored!: () => void;
        const orphansGone = new Promise<void>((resolve) => (restored = resolve));
        const done = this.takeOver(run, () => (restored(), everyOrphanGone));
        takenOver.push(done.catch(() => undefined));
        // The next run is restored once this one's orphans are gone, or it was not taken over.
        await Promise.race([orphansGone, done.then(() => undefined)]);
      }
    } finally {
      allGone();
      await Promise.all(takenOver);
      this.takingOver = false;
    }
  }

  /**
   * Takes a running run over if its owner is gone; undefined when a live supervisor has it.
   * `orphansGone`: called once its orphans are gone; it launches nothing before the promise it returns settles.
   */
  async takeOver(run: Run, orphansGone?: () => Promise<void>): Promise<RunScheduler | undefined> {
    const existing = await this.driving(run.id);
    if (existing || this.closed || this.fenced) return existing;
    const heartbeats = new Map((await this.deps.store.listHeartbeats()).map((h) => [h.id, h]));
    if (!isOwnerGone(run, heartbeats, livenessHere())) return undefined;
    const acquired = await this.deps.store.acquireRun({
      runId: run.id, ownerId: this.deps.ownerId, leaseMs: this.leaseMs, fromStatuses: ['running'], status: 'running',
      previousOwner: run.owner_id, events: [],
    });
    if (!acquired) return undefined;
    // Read after acquiring: a cancel claimed from now on is claimed by us and reaches our scheduler.
    const cancelling = (await this.deps.store.getCancelRequestedAt(run.id)) !== null;
    this.deps.log.info({ runId: run.id, previousOwner: run.owner_id, cancelling }, 'run.takeover_started');
    const scheduler = await this.drive(acquired, () =>
      this.deps.factory.takeover(acquired, run.owner_id, { cancelling, ...(orphansGone ? { orphansGone } : {}) }),
    );
    // Started with nothing launched: the cancel kills the orphans' leftovers and records the run cancelled.
    if (scheduler && cancelling) {
      void scheduler.cancel().catch((err: unknown) => this.deps.log.error({ err, runId: run.id }, 'run.cancel_failed'));
    }
    return scheduler;
  }

  /**
   * Shutdown: acquires nothing more, waits for schedulers being built, then releases every run
   * (see RunScheduler.release). Resolves once each run's attempts have settled, so their
   * processes are gone, and the runs are handed back.
   */
  async releaseAll(drain: boolean): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.building.values()]);
    await Promise.allSettled(this.all().map((s) => s.release(drain)));
  }

  /**
   * Self-fencing: interrupts every run's attempts at once (their process groups get SIGTERM, then
   * SIGKILL after the kill grace, as at shutdown) and lets the runs go, acquiring none until
   * `unfence`. What the attempts and the release record waits for the database: it commits if
   * the run is still ours then (the killed attempts run again under whoever drives it next), and
   * is refused if another supervisor took the run over meanwhile.
   */
  async fenceAll(): Promise<void> {
    this.fenced = true;
    const released = this.all().map((s) => s.release(false, FENCED_TEXT));
    await Promise.allSettled([...this.building.values()]);
    released.push(...this.all().map((s) => s.release(false, FENCED_TEXT)));
    await Promise.allSettled(released);
  }

  /** The fence is lifted: runs may be acquired again. */
  unfence(): void {
    this.fenced = false;
  }

  /** A second, impatient shutdown request: interrupts what a drain was letting finish. */
  interruptAll(): void {
    for (const scheduler of this.all()) void scheduler.release(false);
  }

  /**
   * Creates and registers the scheduler of a run we own. A run whose scheduler cannot be built
   * (an unreadable definition, a broken log) is failed with the reason rather than left running.
   * One whose build the store refused for now (a full disk) is not failed for it: it is let go,
   * still running, and taken over (rebuilt from its events) once writes go through.
   */
  private drive(run: Run, create: () => Promise<RunScheduler>): Promise<RunScheduler | undefined> {
    // Shutdown (or a fence) began while the run was being acquired: hand it straight back, untouched.
    if (this.closed || this.fenced) return this.deps.store.releaseRuns(this.deps.ownerId, [run.id]).then(() => undefined);
    const building = this.build(run, create).finally(() => this.building.delete(run.id));
    this.building.set(run.id, building);
    return building;
  }

  private async build(run: Run, create: () => Promise<RunScheduler>): Promise<RunScheduler | undefined> {
    try {
      const scheduler = await create();
      this.deferredStarts.succeeded();
      this.schedulers.set(run.id, scheduler);
      // Fenced while it was being built: it may have launched nodes already; they end with it.
      if (this.fenced) void scheduler.release(false, FENCED_TEXT);
      void scheduler.done.finally(() => this.schedulers.delete(run.id));
      return scheduler;
    } catch (err) {
      if (isWorthWaitingFor(err)) {
        this.deferredStarts.failed(err, { runId: run.id });
        // If even this is refused, the run's lease lapses and the heartbeat takes it over then.
        await this.deps.store.releaseRuns(this.deps.ownerId, [run.id]).catch(() => undefined);
        return undefined;
      }
      const error = `Run could not be started: ${(err as Error).message}`;
      this.deps.log.error({ err, runId: run.id }, 'run.start_failed');
      await this.deps.store.transitionRun({
        runId: run.id, ownerId: this.deps.ownerId, status: 'failed', error, release: true,
        events: [newRunLevelEvent(run, 'workflow_failed', { error })],
      });
      return undefined;
    }
  }
}
