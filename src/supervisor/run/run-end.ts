import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { RunStatus } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { commitTerminalTransition } from './terminal-transition.js';

/** Settles with the run's final status, or `released` when it was handed back at shutdown. */
export type SchedulerEnd = RunStatus | 'released';

/**
 * How a scheduler's hold on its run ends, exactly once: a terminal state committed (completed,
 * failed, cancelled, paused), or the run let go without one (released at shutdown, asleep until
 * its `wait` wakes). `done` settles when it has.
 */
export class RunEnd {
  /** A terminal transition is being committed (or was): nothing else may start one. */
  private committing: Promise<void> | undefined;
  private over = false;
  private resolveDone!: (end: SchedulerEnd) => void;
  readonly done = new Promise<SchedulerEnd>((resolve) => (this.resolveDone = resolve));

  constructor(private readonly deps: { store: Store; runId: string; ownerId: string; log: Logger }) {}

  /** The run's terminal state is committed or being committed, or the run was let go. */
  get reached(): boolean {
    return this.over || this.committing !== undefined;
  }

  /** The scheduler holds the run no longer (terminal state committed, or let go). */
  get finished(): boolean {
    return this.over;
  }

  /** The terminal transition under way, if one is. */
  get ending(): Promise<void> | undefined {
    return this.committing;
  }

  /** Commits the run's terminal state, retrying until it commits; only then is the run done. */
  finish(status: RunStatus, error: string | null, events: NewRunEvent[], metadataPatch?: Record<string, unknown>): Promise<void> {
    this.committing ??= (async () => {
      const committed = await commitTerminalTransition(
        this.deps.store,
        { runId: this.deps.runId, ownerId: this.deps.ownerId, status, error, release: true, events, ...(metadataPatch ? { metadataPatch } : {}) },
        this.deps.log,
      );
      this.over = true;
      if (committed) this.deps.log.info({ status, ...(error !== null ? { error } : {}) }, 'run.finished');
      this.resolveDone(committed ? status : 'released');
    })();
    return this.committing;
  }

  /**
   * Lets the run sleep until `wakeAt` (RunStore.sleepRun: it stays `running`, owned by nobody,
   * with a `wake_run` job due then), calling `beforeLetGo` once that is committed. False when
   * the store refused (a cancel is on the run, or it was lost) or failed, or the run ended
   * meanwhile: the caller goes on driving it.
   */
  async sleep(wakeAt: number, beforeLetGo: () => void): Promise<boolean> {
    const at = new Date(wakeAt).toISOString();
    let slept = false;
    try {
      slept = await this.deps.store.sleepRun({ runId: this.deps.runId, ownerId: this.deps.ownerId, wakeAt: at });
    } catch (err) {
      this.deps.log.warn({ err }, 'run.sleep_failed');
    }
    if (!slept || this.reached) return false;
    beforeLetGo();
    this.deps.log.info({ wakeAt: at }, 'run.sleeping');
    await this.letGo();
    return true;
  }

  /**
   * Lets the run go without a terminal state once `handOver` (the store's release, say) is done;
   * the scheduler counts as finished from the start, so nothing new begins meanwhile.
   */
  async letGo(handOver: () => Promise<unknown> = async () => {}): Promise<void> {
    this.over = true;
    await handOver();
    this.resolveDone('released');
  }
}
