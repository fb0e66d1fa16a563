import { clockNow } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { Slots, SlotHold } from './slots.js';
import { GLOBAL_SLOT, RUN_SLOT, runSlots } from './engine-slots.js';
import { RunBudget } from './budget.js';
import { ProviderLine } from './provider-line.js';
import type { CheckCondition } from './node-context.js';
import type { NodeEventFactory } from './node-events.js';
import type { AttemptOutcome, NodeHandlerSet } from './node-handler.js';
import { isTerminal, type NodeEntry, type NodeTable } from './node-table.js';
import { closeSuspendedAttempts } from './close-suspended.js';
import { NodeTimers } from './node-timers.js';
import { ReadyQueue } from './ready-queue.js';
import { applyOutcome, runNodeAttempt, type AttemptRun, type OutcomeTarget } from './node-attempt.js';
import { runEnding } from './run-outcome.js';
import type { RunPlan } from './run-plan.js';
import { RunEnd, type SchedulerEnd } from './run-end.js';
import { budgetPause, gatePause, type RunPause } from './run-pause.js';
import type { ApprovalContext } from '../../store/schemas/approval.js';
import { CandidateDecider } from './candidate-decider.js';
import { RunWriteFaults } from './write-faults.js';
import { isWorthWaitingFor } from '../../shared/store-faults.js';
import { attemptCloser } from '../../worker/attempt-closer.js';

export interface SchedulerDeps {
  store: Store;
  /** The global limit (engine-slots.ts). */
  limiter: Slots;
  handlers: NodeHandlerSet;
  events: NodeEventFactory;
  checkCondition: CheckCondition;
  ownerId: string;
  perRunLimit: number;
  /** The run's slots, when handlers take them too (an in-run fan-out's instances); else made from perRunLimit. */
  runSlots?: Slots;
  /** Per-provider limits shared by all runs; with `providerOf`, which provider a node calls (undefined: none). */
  providerSlots?: Slots;
  providerOf?: (node: NodeEntry['plan']) => string | undefined;
  /** The run's own logger (bound to its runId): calls do not repeat the runId. */
  log: Logger;
  /**
   * A run whose only pending work is `wait` nodes waking more than this many ms from now is let
   * go to sleep (RunStore.sleepRun) instead of keeping its timers here; undefined: never.
   */
  sleepAfterMs?: number;
}

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
  private readonly inflight = new Set<Promise<void>>();
  private readonly runSlots: Slots;
  private readonly decider: CandidateDecider;
  /** Nodes waiting out a retry delay or at a `wait`: off the queue, holding no slot. */
  private readonly timers = new NodeTimers((entry) => {
    this.ready.push(entry);
    this.kick();
  });
  /** The run is being let go to sleep (see sleep()); settles once that is committed or refused. */
  private sleeping: Promise<unknown> | undefined;
  /** Nodes at a gate, in the order they reached it: the first is what the paused run asks about. */
  private readonly suspended = new Map<NodeEntry, ApprovalContext>();
  private readonly queueAbort = new AbortController();
  private readonly attemptAbort = new AbortController();
  private stopping: StopMode | undefined;
  private releasing: Promise<void> | undefined;
  private dirty = false;
  private pumping: Promise<void> | undefined;
  /** Stopping, and every in-flight attempt has settled: the run may now finish (or be released). */
  private settled = false;
  /** How the scheduler's hold on the run ends: a terminal state committed, or the run let go. */
  private readonly end: RunEnd;
  /** What each attempt runs with, and what its outcome moves (node-attempt.ts). */
  private readonly attemptRun: AttemptRun;
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
    this.runSlots = deps.runSlots ?? runSlots(deps.perRunLimit);
    this.decider = new CandidateDecider({ table, events: deps.events, checkCondition: deps.checkCondition }, this.candidates, this.ready);
    this.runSlots.onFree = () => this.kick();
    this.attemptRun = {
      handlers: deps.handlers,
      signal: this.attemptAbort.signal,
      log: deps.log,
      budgetCheck: (node) => (deps.providerOf?.(node.plan) === undefined ? undefined : () => this.budget.reachedNow()),
      heldBack: (node) => {
        const over = deps.providerOf?.(node.plan) === undefined ? undefined : this.budget.over;
        if (!over) return false;
        this.budget.reached = over;
        return true;
      },
    };
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
    await this.endCancelled(reason, `Workflow cancelled (node '${nodeId}'): ${reason}`);
  }

  private async endCancelled(reason: string, error: string | null): Promise<void> {
    if (this.end.reached) return;
    this.stop('cancel');
    await this.settleInflight();
    // Skip records of the last pass are committed before the run's terminal event.
    await this.pumpIdle();
    // Let go to sleep meanwhile: the cancel is completed by whoever ends the sleeping run.
    if (this.end.reached) return;
    const closing = await this.closeHeldAttempts(reason);
    await this.end.finish('cancelled', error, [...closing, newRunLevelEvent(this.run, 'workflow_cancelled', { reason })]);
  }

  /**
   * Attempts left open when the run ends cancelled: a `wait` not yet woken, a gate suspended
   * while other nodes still ran. Each gets its terminal record (failed, cancelled) with the run's
   * cancel, read from the log only when there is one.
   */
  private async closeHeldAttempts(reason: string): Promise<NewRunEvent[]> {
    if (!this.suspended.size && ![...this.table.values()].some((e) => e.heldAttempt && !isTerminal(e.status))) return [];
    return closeSuspendedAttempts(this.run, await this.deps.store.listRunEvents(this.run.id), reason);
  }

  /** Shutdown: with `drain`, in-flight attempts finish and nothing new starts; without, they are
   * interrupted. Either way the run stays `running` and is released for the next supervisor.
   * Calling it again without `drain` while draining interrupts what is still running. */
  release(drain: boolean): Promise<void> {
    this.stop(drain ? 'drain' : 'shutdown');
    this.releasing ??= this.releaseOnceSettled();
    return this.releasing;
  }

  private async releaseOnceSettled(): Promise<void> {
    await this.settleInflight();
    // One last pass decides what the settled attempts unblocked and may finish the run; its
    // events are committed before any terminal event, which is always the run's last.
    this.settled = true;
    this.kick();
    await this.pumpIdle();
    if (this.end.ending) return void (await this.end.ending);
    if (this.end.finished) return;
    await this.end.letGo(() => this.deps.store.releaseRuns(this.deps.ownerId, [this.run.id]));
  }

  private stop(mode: StopMode): void {
    if (this.end.finished) return;
    this.stopping ??= mode;
    this.queueAbort.abort();
    this.letGoOfWaiting();
    if (mode !== 'drain') this.attemptAbort.abort(mode === 'shutdown' ? { reason: 'shutdown' } : 'cancelled');
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

  private async settleInflight(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Asks for one more scheduling pass; passes never overlap. */
  private kick(): void {
    this.dirty = true;
    if (this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      // A kick that came after the pass's last check, before this callback, found a pass still
      // set and started none: take it now, or the run would wait for a kick that never comes.
      if (this.dirty && !this.end.reached) this.kick();
    });
  }

  /** Resolves once no scheduling pass is running or asked for. */
  private async pumpIdle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    let decided: NewRunEvent[] = [];
    try {
      while (this.dirty && !this.end.reached) {
        this.dirty = false;
        decided = this.writeFaults.withUnwritten(this.decider.decide());
        // Skip records are durable before any dependant acts on them.
        if (decided.length) {
          await this.deps.store.appendEvents(decided);
          this.writeFaults.succeeded();
        }
        decided = [];
        if (!this.stopping && !this.budget.reached) this.launchReady();
        await this.maybeFinish();
      }
    } catch (err) {
      // The store refused the records for now (a full disk): the pass is tried again later.
      if (isWorthWaitingFor(err)) return this.writeFaults.passRefused(err, decided);
      this.deps.log.error({ err }, 'run.schedule_failed');
      void this.failRun(`Scheduling failed: ${(err as Error).message}`).catch(() => {});
    }
  }

  private launchReady(): void {
    // Nodes parked for their provider were ready first: they are looked at first, in order.
    const parked = this.providerLine?.takeAll() ?? [];
    let entry: NodeEntry | undefined;
    while (this.runSlots.free(RUN_SLOT) && (entry = parked.shift() ?? this.ready.shift())) {
      const provider = this.deps.providerOf?.(entry.plan);
      const over = provider === undefined ? undefined : this.budget.over;
      if (over) {
        // Checked before the attempt asks for anything: it stays ready, and the run pauses once
        // what is running has ended (nothing is killed).
        this.budget.reached = over;
        parked.unshift(entry);
        this.deps.log.info({ nodeId: entry.plan.id, spentUsd: over.spent, budgetUsd: over.usd, budgetRunId: over.runId }, 'run.budget_reached');
        break;
      }
      let providerHold: SlotHold | undefined;
      if (provider !== undefined && this.providerLine && !(providerHold = this.providerLine.take(entry, provider))) continue;
      this.launch(entry, provider, providerHold);
    }
    this.providerLine?.putBack(parked);
  }

  private launch(node: NodeEntry, provider: string | undefined, providerHold: SlotHold | undefined): void {
    node.status = 'running';
    let tokens: number | undefined;
    // A node that waits for other runs holds no global slot (their nodes take theirs).
    const outsideLimit = this.deps.handlers.handlerFor(node.plan).waitsForRuns === true;
    const runHold = outsideLimit ? undefined : this.runSlots.tryAcquire(RUN_SLOT);
    const task = (
      outsideLimit
        ? this.runAttempt(node).then((value) => ({ dropped: false as const, value }))
        : this.deps.limiter.run(GLOBAL_SLOT, () => this.runAttempt(node), this.queueAbort.signal)
    )
      .then((ran) => {
        // Dropped from the queue before it started (cancel, shutdown, drain): nothing ran.
        if (ran.dropped) node.status = 'pending';
        else {
          if ('tokens' in ran.value) tokens = ran.value.tokens;
          if (ran.value.status !== 'deferred') this.writeFaults.succeeded();
          applyOutcome(node, ran.value, this.outcomeTarget);
        }
      })
      .catch((err: unknown) => {
        this.deps.log.error({ err, nodeId: node.plan.id }, 'node.schedule_failed');
        applyOutcome(node, { status: 'failed', error: (err as Error).message, failureKind: 'transient' }, this.outcomeTarget);
      })
      // The attempt's end (and its spend, or its child runs') is committed: the budget is checked against it.
      .then(() => (provider !== undefined || outsideLimit ? this.budget.refresh() : undefined))
      .finally(() => {
        providerHold?.release(tokens);
        if (runHold?.acquired) runHold.hold.release();
        this.inflight.delete(task);
        this.kick();
      });
    this.inflight.add(task);
  }

  private runAttempt(entry: NodeEntry): Promise<AttemptOutcome> {
    return runNodeAttempt(entry, this.attemptRun);
  }

  /**
   * Ends the run once nothing of it runs any more: completed or failed when every node is
   * terminal; else paused when it waits for a person at a gate, for a child run, or for more
   * budget (an AI attempt was held back by it). A paused run holds nothing here (no scheduler,
   * no timer, no lease); a resume, or the answer's job, rebuilds it from its events.
   */
  private async maybeFinish(): Promise<void> {
    if (this.end.reached || this.inflight.size || (this.stopping && !this.settled)) return;
    if (!this.table.allTerminal()) {
      if (this.budget.reached) {
        // Ready nodes, retries and waits hold nothing and continue when the run is resumed.
        this.letGoOfWaiting();
        await this.paused(budgetPause(this.run, this.budget.reached));
      } else if (this.suspended.size && !this.ready.length && !this.timers.retrying && !this.timers.waiting) {
        const [entry, approval] = this.suspended.entries().next().value!;
        await this.paused(gatePause(this.run, entry.path, approval));
      } else await this.maybeSleep();
      return;
    }
    const { status, error, event } = runEnding(this.run, this.plan.workflowName, this.table.values());
    await this.end.finish(status, error, [event]);
  }

  /**
   * Nothing of the run can happen before its earliest `wait` wakes, and that is more than
   * `sleepAfterMs` away: the run is let go (it stays `running`, owned by nobody) with a `wake_run`
   * job due at that moment, in one transaction (RunStore.sleepRun), so a sleeping run holds no
   * timer, scheduler or lease anywhere. Whoever claims the job rebuilds the run from its events,
   * and the wait completes as the same attempt. Refused (a cancel is on the run, or it was lost),
   * or the store failing: the run goes on here with its timers.
   */
  private async maybeSleep(): Promise<void> {
    const after = this.deps.sleepAfterMs;
    if (after === undefined || this.stopping || this.sleeping || !this.timers.waiting) return;
    if (this.ready.length || this.providerLine?.length || this.timers.retrying || this.inflight.size) return;
    const wakeAt = this.timers.earliestWake!;
    if (wakeAt - clockNow() <= after) return;
    this.sleeping = this.end.sleep(wakeAt, () => this.timers.letGo()).finally(() => (this.sleeping = undefined));
    await this.sleeping;
  }

  private paused({ event, patch }: RunPause): Promise<void> {
    return this.end.finish('paused', null, [event], patch);
  }

  private async failRun(error: string): Promise<void> {
    if (this.end.reached) return;
    this.stop('cancel');
    await this.settleInflight();
    await this.pumpIdle();
    await this.end.finish('failed', error, [newRunLevelEvent(this.run, 'workflow_failed', { error })]);
  }
}
