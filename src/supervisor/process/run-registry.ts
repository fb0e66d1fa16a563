import { hostname } from 'node:os';
import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { SchedulerFactory } from '../run/scheduler-factory.js';
import type { RunScheduler } from '../run/scheduler.js';
import { isOwnerGone } from './liveness.js';

/** How long an owned run stays ours without a renewal. */
export const RUN_LEASE_MS = 15_000;

/**
 * The runs this supervisor drives, one scheduler each: acquiring a run (fresh or taken over
 * from a supervisor that is gone), and letting go of it when its scheduler is done.
 */
export class RunRegistry {
  private readonly schedulers = new Map<string, RunScheduler>();
  private takingOver = false;

  constructor(
    private readonly deps: { store: Store; factory: SchedulerFactory; ownerId: string; log: Logger },
  ) {}

  get size(): number {
    return this.schedulers.size;
  }

  get(runId: string): RunScheduler | undefined {
    return this.schedulers.get(runId);
  }

  /** Ids of the runs with a live scheduler here: the only leases worth renewing. */
  runIds(): string[] {
    return [...this.schedulers.keys()];
  }

  all(): RunScheduler[] {
    return [...this.schedulers.values()];
  }

  /** Starts driving a run this supervisor has just moved from pending to running. */
  startFresh(run: Run): Promise<RunScheduler | undefined> {
    return this.drive(run, () => this.deps.factory.fresh(run));
  }

  /** Takes over every running run whose owner is gone (see isOwnerGone), while `keepGoing()`. */
  async takeOverOrphanedRuns(keepGoing: () => boolean): Promise<void> {
    if (this.takingOver || !keepGoing()) return;
    this.takingOver = true;
    try {
      for (const run of await this.deps.store.listRunsNotOwnedBy(this.deps.ownerId, 'running')) {
        if (!keepGoing()) break;
        await this.takeOver(run);
      }
    } finally {
      this.takingOver = false;
    }
  }

  /** Takes a running run over if its owner is gone; undefined when a live supervisor has it. */
  async takeOver(run: Run): Promise<RunScheduler | undefined> {
    const existing = this.schedulers.get(run.id);
    if (existing) return existing;
    const heartbeats = new Map((await this.deps.store.listHeartbeats()).map((h) => [h.id, h]));
    if (!isOwnerGone(run, heartbeats, { now: Date.now(), hostname: hostname() })) return undefined;
    const acquired = await this.deps.store.acquireRun({
      runId: run.id, ownerId: this.deps.ownerId, leaseMs: RUN_LEASE_MS, fromStatuses: ['running'], status: 'running',
      previousOwner: run.owner_id, events: [],
    });
    if (!acquired) return undefined;
    this.deps.log.info({ runId: run.id, previousOwner: run.owner_id }, 'run.takeover_started');
    return this.drive(acquired, () => this.deps.factory.takeover(acquired, run.owner_id));
  }

  /** Creates and registers the scheduler of a run we own. A run whose scheduler cannot be built
   * (an unreadable definition, a broken log) is failed with the reason rather than left running. */
  private async drive(run: Run, create: () => Promise<RunScheduler>): Promise<RunScheduler | undefined> {
    try {
      const scheduler = await create();
      this.schedulers.set(run.id, scheduler);
      void scheduler.done.finally(() => this.schedulers.delete(run.id));
      return scheduler;
    } catch (err) {
      const error = `Run could not be started: ${(err as Error).message}`;
      this.deps.log.error({ err, runId: run.id }, 'run.start_failed');
      await this.deps.store.transitionRun({
        runId: run.id, ownerId: this.deps.ownerId, status: 'failed', error, release: true,
        events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_failed', step_name: null, data: { error } }],
      });
      return undefined;
    }
  }
}
