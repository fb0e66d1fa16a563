import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { runSlots } from './engine-slots.js';
import { RunBudget } from './budget.js';
import { GlobalLine } from './global-line.js';
import { ProviderLine } from './provider-line.js';
import type { SchedulerDeps } from './scheduler-deps.js';
import { NodeLauncher } from './node-launcher.js';
import { SchedulerPasses, schedulingPass } from './scheduler-passes.js';
import type { NodeEntry, NodeTable } from './node-table.js';
import { closeHeldAttempts } from './close-suspended.js';
import { NodeTimers } from './node-timers.js';
import { ReadyQueue } from './ready-queue.js';
import { applyOutcome, attemptRunOf, runNodeAttempt, type OutcomeTarget } from './node-attempt.js';
import type { RunPlan } from './run-plan.js';
import { RunEnd, type SchedulerEnd } from './run-end.js';
import { RunFinish } from './run-finish.js';
import type { ApprovalContext } from '../../store/schemas/approval.js';
import { CandidateDecider } from './candidate-decider.js';
import { RunWriteFaults } from './write-faults.js';
import { attemptCloser } from '../../worker/attempt-closer.js';
import { abortReasonOf } from '../../worker/cancel-reason.js';

export type { SchedulerDeps };

type StopMode = 'cancel' | 'shutdown' | 'drain';

export type { SchedulerEnd };

/**
 * Drives one run by readiness over its node table: a node is decided the moment its last
 * dependency is terminal (trigger rule, then `when`), and a ready node starts as soon as the
 * run's own limit and the global one allow. What an attempt does is its handler's business; the
 * scheduler writes only scheduling and run events. It is the only writer of the run's state
 * while it owns the run.
 */
export class RunScheduler {
  /** Nodes whose last unfinished dependency just became terminal: the only ones a pass decides. */
  private readonly candidates = new ReadyQueue<NodeEntry>();
  private readonly ready = new ReadyQueue<NodeEntry>();
  /** Ready AI nodes waiting in line for a slot of their provider (absent without provider limits). */
  private readonly providerLine: ProviderLine | undefined;
  /** The run's USD budget (metadata.budget.usd) and its engine-counted spend as last read. */
  private readonly budget: RunBudget;
  /** The attempts in flight, and what starts ready nodes within the limits (node-launcher.ts). */
  private readonly launcher: NodeLauncher;
  private readonly passes: SchedulerPasses;
  /** Whether the run ends (completed, failed, paused) or sleeps once nothing of it runs (run-finish.ts). */
  private readonly finish: RunFinish;
  private readonly decider: CandidateDecider;
  /** Nodes waiting out a retry delay or at a `wait`: off the queue, holding no slot. */
  private readonly timers = new NodeTimers((entry) => {
    this.ready.push(entry);
    this.kick();
  });
  /** Nodes at a gate, in the order they reached it: the first is what the paused run asks about. */
  private readonly suspended = new Map<NodeEntry, ApprovalContext>();
  private readonly queueAbort = new AbortController();
  private readonly attemptAbort = new AbortController();
  private stopping: StopMode | undefined;
  private releasing: Promise<void> | undefined;
  /** Stopping, and every in-flight attempt has settled: the run may now finish (or be released). */
  private settled = false;
  /** How the scheduler's hold on the run ends: a terminal state committed, or the run let go. */
  private readonly end: RunEnd;
  /** What each attempt's outcome moves (node-attempt.ts). */
  private readonly outcomeTarget: OutcomeTarget;
  /** Writes the store refused for now (a full disk): the run waits for them, never fails of them. */
  private readonly writeFaults: RunWriteFaults;

  constructor(
    private readonly run: Run,
    private readonly plan: RunPlan,
    private readonly table: NodeTable,
    private readonly deps: SchedulerDeps,
  ) {
    this.end = new RunEnd({ store: deps.store, runId: run.id, ownerId: deps.ownerId, log: deps.log });
    this.writeFaults = new RunWriteFaults(deps.log, () => this.kick());
    this.budget = new RunBudget(run, (id) => deps.store.getRun(id), deps.log);
    this.decider = new CandidateDecider({ table, events: deps.events, checkCondition: deps.checkCondition }, this.candidates, this.ready);
    this.passes = new SchedulerPasses(
      schedulingPass({
        decide: () => this.decider.decide(),
        writeFaults: this.writeFaults,
        store: deps.store,
        launch: () => {
          if (!this.stopping && !this.budget.reached) this.launcher.launchReady();
        },
        finish: () => this.finish.maybeFinish(),
        fail: (err) => {
          deps.log.error({ err }, 'run.schedule_failed');
          void this.failRun(`Scheduling failed: ${(err as Error).message}`).catch(() => {});
        },
      }),
      () => this.end.reached,
    );
    const slots = deps.runSlots ?? runSlots(deps.perRunLimit);
    slots.onFree = () => this.kick();
    const attemptRun = attemptRunOf({ handlers: deps.handlers, signal: this.attemptAbort.signal, log: deps.log, providerOf: deps.providerOf, budget: this.budget });
    this.outcomeTarget = {
      table,
      candidates: this.candidates,
      suspended: this.suspended,
      timers: this.timers,
      stopping: () => this.stopping !== undefined,
      halt: (nodeId, reason) => void this.halt(nodeId, reason).catch((err: unknown) => deps.log.error({ err }, 'run.halt_failed')),
      overBudget: (reached) => {
        this.budget.reached ??= reached;
      },
      defer: (entry, err) => this.writeFaults.attemptDeferred(entry, err, this.timers),
    };
    this.providerLine = deps.providerSlots
      ? new ProviderLine({ run, store: deps.store, log: deps.log, slots: deps.providerSlots, wake: () => this.kick() })
      : undefined;
    this.launcher = new NodeLauncher({
      handlers: deps.handlers,
      globalLine: new GlobalLine({ run, store: deps.store, log: deps.log, limiter: deps.limiter }),
      runSlots: slots,
      providerLine: this.providerLine,
      providerOf: deps.providerOf,
      budget: this.budget,
      ready: this.ready,
      log: deps.log,
      queueSignal: this.queueAbort.signal,
      runAttempt: (entry) => runNodeAttempt(entry, attemptRun),
      ended: (entry, outcome, thrown) => {
        if (!outcome) entry.status = 'pending';
        else {
          if (!thrown && outcome.status !== 'deferred') this.writeFaults.succeeded();
          applyOutcome(entry, outcome, this.outcomeTarget);
        }
      },
      kick: () => this.kick(),
    });
    this.finish = new RunFinish({
      run, plan, table, end: this.end, budget: this.budget, suspended: this.suspended, ready: this.ready, timers: this.timers,
      providerLine: this.providerLine, launcher: this.launcher, sleepAfterMs: deps.sleepAfterMs, autoResume: deps.autoResume, evidence: deps.evidence,
      stopping: () => this.stopping !== undefined,
      settled: () => this.settled,
      letGoOfWaiting: () => this.letGoOfWaiting(),
    });
  }

  get runId(): string {
    return this.run.id;
  }

  /** Settles with the run's final status, or `released` when it was let go. */
  get done(): Promise<SchedulerEnd> {
    return this.end.done;
  }

  /** Ready nodes waiting for a slot of this run's own limit (not yet asking the global one). */
  get queuedNodes(): number {
    return this.ready.length + (this.providerLine?.length ?? 0);
  }

  /**
   * Begins driving; `closing` are events to write first (attempts closed by a take-over). With
   * `cancelling` nothing is launched: the run's cancel was requested, and the caller calls `cancel()`.
   */
  async start(closing: readonly NewRunEvent[] = [], opts: { cancelling?: boolean } = {}): Promise<void> {
    // The attempts a dead supervisor left in flight, closed by their owner (a no-op for any its thread closed first).
    await attemptCloser(this.deps.store).closeAll('takeover', closing);
    // The budgets above this run (a child's) are read before its first AI attempt is checked.
    await this.budget.refresh();
    this.candidates.push(...this.table.unblocked(this.plan.order));
    for (const entry of this.table.retrying()) this.timers.retryAfter(entry, Math.max(0, entry.retryAt! - Date.now()));
    if (opts.cancelling) this.stop('cancel');
    this.kick();
  }

  /** Cancels the run: drops queued nodes, kills running ones (confirming their processes are
   * gone), then records the run `cancelled`. Resolves once the run's final state is committed. */
  async cancel(reason = 'Cancelled by user'): Promise<void> {
    await this.endCancelled(reason, null);
    await this.done;
  }

  /**
   * A node suspended on a child run whose child has now ended while this run still runs: the
   * same attempt is continued (its handler reads the child's end). `ending`: the run is being
   * paused or ended right now (the caller tries again, and then finds it paused); `absent`: no
   * such node waits here.
   */
  continueSuspended(path: string): 'continued' | 'ending' | 'absent' {
    if (this.end.reached) return 'ending';
    const entry = [...this.suspended.keys()].find((e) => e.path === path);
    if (!entry || !entry.heldAttempt) return 'absent';
    this.suspended.delete(entry);
    entry.status = 'ready';
    this.ready.push(entry);
    this.kick();
    return 'continued';
  }

  /** A `cancel:` node was reached: the run ends cancelled with the node's reason. */
  private async halt(nodeId: string, reason: string): Promise<void> {
    this.deps.log.info({ nodeId, reason }, 'run.halted');
    // What the attempts it stops record: this node, not a user, stopped them.
    await this.endCancelled(reason, `Workflow cancelled (node '${nodeId}'): ${reason}`, `Cancelled by node '${nodeId}': ${reason}`);
  }

  private async endCancelled(reason: string, error: string | null, stoppedBy?: string): Promise<void> {
    if (this.end.reached) return;
    this.stop('cancel', stoppedBy);
    await this.launcher.settle();
    // Skip records of the last pass are committed before the run's terminal event.
    await this.passes.idle();
    // Let go to sleep meanwhile: the cancel is completed by whoever ends the sleeping run.
    if (this.end.reached) return;
    const closing = await closeHeldAttempts(this.run, this.table, this.suspended.size > 0, this.deps.store, reason);
    await this.end.finish('cancelled', error, [...closing, newRunLevelEvent(this.run, 'workflow_cancelled', { reason })]);
  }

  /** Shutdown: with `drain`, in-flight attempts finish and nothing new starts; without, they are
   * interrupted (`why`: what their records say, when it is not a shutdown). Either way the run
   * stays `running` and is released for the next supervisor. Calling it again without `drain`
   * while draining interrupts what is still running. */
  release(drain: boolean, why?: string): Promise<void> {
    this.stop(drain ? 'drain' : 'shutdown', why);
    this.releasing ??= this.releaseOnceSettled();
    return this.releasing;
  }

  private async releaseOnceSettled(): Promise<void> {
    await this.launcher.settle();
    // One last pass decides what the settled attempts unblocked and may finish the run; its
    // events are committed before any terminal event, which is always the run's last.
    this.settled = true;
    this.kick();
    await this.passes.idle();
    if (this.end.ending) return void (await this.end.ending);
    if (this.end.finished) return;
    await this.end.letGo(() => this.deps.store.releaseRuns(this.deps.ownerId, [this.run.id]));
  }

  /** `stoppedBy`: what the stopped attempts' records say (else "Cancelled by user", or the shutdown's text). */
  private stop(mode: StopMode, stoppedBy?: string): void {
    if (this.end.finished) return;
    this.stopping ??= mode;
    this.queueAbort.abort();
    this.letGoOfWaiting();
    if (mode !== 'drain') {
      this.attemptAbort.abort(abortReasonOf({ reason: mode === 'shutdown' ? 'shutdown' : 'cancelled', ...(stoppedBy ? { text: stoppedBy } : {}) }));
    }
  }

  /**
   * Nodes that wait without running (out a retry delay, at a `wait`, in their provider's line)
   * hold nothing: they go back to pending, retries with their count and waits with the moment
   * their record holds, for whoever drives the run next.
   */
  private letGoOfWaiting(): void {
    this.timers.letGo();
    this.providerLine?.leaveAll();
  }

  /** Asks for one more scheduling pass (scheduler-passes.ts: passes never overlap, none is lost). */
  private kick(): void {
    this.passes.kick();
  }

  private async failRun(error: string): Promise<void> {
    if (this.end.reached) return;
    this.stop('cancel');
    await this.launcher.settle();
    await this.passes.idle();
    await this.end.finish('failed', error, [newRunLevelEvent(this.run, 'workflow_failed', { error })]);
  }
}
