import { randomUUID } from 'node:crypto';
import { clockNow } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run, RunStatus } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { AttemptLimiter } from '../process/limits.js';
import type { ProviderSlots } from '../process/provider-limits.js';
import { budgetPausePatch, budgetPauseReason, RunBudget } from './budget.js';
import { ProviderLine } from './provider-line.js';
import type { CheckCondition } from './node-context.js';
import type { NodeEventFactory } from './node-events.js';
import type { AttemptOutcome, NodeHandlerSet } from './node-handler.js';
import { isTerminal, type NodeEntry, type NodeTable } from './node-table.js';
import { closeSuspendedAttempts } from '../jobs/close-suspended.js';
import { NodeTimers } from './node-timers.js';
import { ReadyQueue } from './ready-queue.js';
import { decideRetry } from './retry-policy.js';
import { summariseOutcome } from './run-outcome.js';
import { fingerprintOfText } from './output-fingerprint.js';
import type { RunPlan } from './run-plan.js';
import { approvalPatch } from './approval-patch.js';
import { commitTerminalTransition } from './terminal-transition.js';
import type { ApprovalContext } from '../../store/schemas/approval.js';
import { RunSlots } from './run-slots.js';
import { CandidateDecider } from './candidate-decider.js';

export interface SchedulerDeps {
  store: Store;
  limiter: AttemptLimiter;
  handlers: NodeHandlerSet;
  events: NodeEventFactory;
  checkCondition: CheckCondition;
  ownerId: string;
  perRunLimit: number;
  /** The run's slots, when handlers take them too (an in-run fan-out's instances); else made from perRunLimit. */
  runSlots?: RunSlots;
  /** Per-provider limits shared by all runs; with `providerOf`, which provider a node calls (undefined: none). */
  providerSlots?: ProviderSlots;
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

/** Settles with the run's final status, or `released` when it was handed back at shutdown. */
export type SchedulerEnd = RunStatus | 'released';

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
  private readonly runSlots: RunSlots;
  private readonly decider: CandidateDecider;
  /** Nodes waiting out a retry delay or at a `wait`: off the queue, holding no slot. */
  private readonly timers = new NodeTimers((entry) => {
    this.ready.push(entry);
    this.kick();
  });
  /** The run is being let go to sleep (see sleep()); settles once that is committed or refused. */
  private sleeping: Promise<void> | undefined;
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
  /** A terminal transition is being committed (or was): nothing else may start one. */
  private ending: Promise<void> | undefined;
  private finished = false;
  private resolveDone!: (end: SchedulerEnd) => void;
  readonly done = new Promise<SchedulerEnd>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly run: Run,
    private readonly plan: RunPlan,
    private readonly table: NodeTable,
    private readonly deps: SchedulerDeps,
  ) {
    this.budget = new RunBudget(run.metadata);
    this.runSlots = deps.runSlots ?? new RunSlots(deps.perRunLimit);
    this.decider = new CandidateDecider({ table, events: deps.events, checkCondition: deps.checkCondition }, this.candidates, this.ready);
    this.runSlots.onFree = () => this.kick();
    this.providerLine = deps.providerSlots
      ? new ProviderLine({ run, store: deps.store, log: deps.log, slots: deps.providerSlots, wake: () => this.kick() })
      : undefined;
  }

  get runId(): string {
    return this.run.id;
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
    if (closing.length) await this.deps.store.appendEvents(closing);
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
    if (this.ending || this.finished) return 'ending';
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
    if (this.ending || this.finished) return;
    this.stop('cancel');
    await this.settleInflight();
    // Skip records of the last pass are committed before the run's terminal event.
    await this.pumpIdle();
    // Let go to sleep meanwhile: the cancel is completed by whoever ends the sleeping run.
    if (this.ending || this.finished) return;
    const closing = await this.closeHeldAttempts(reason);
    await this.finish('cancelled', error, [...closing, newRunLevelEvent(this.run, 'workflow_cancelled', { reason })]);
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
    if (this.ending) return void (await this.ending);
    if (this.finished) return;
    this.finished = true;
    await this.deps.store.releaseRuns(this.deps.ownerId, [this.run.id]);
    this.resolveDone('released');
  }

  private stop(mode: StopMode): void {
    if (this.finished) return;
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
    this.providerLine?.leaveAll((entry) => this.deps.providerOf?.(entry.plan));
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
      if (this.dirty && !this.finished && !this.ending) this.kick();
    });
  }

  /** Resolves once no scheduling pass is running or asked for. */
  private async pumpIdle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    try {
      while (this.dirty && !this.finished && !this.ending) {
        this.dirty = false;
        const decided = this.decider.decide();
        // Skip records are durable before any dependant acts on them.
        if (decided.length) await this.deps.store.appendEvents(decided);
        if (!this.stopping && !this.budget.reached) this.launchReady();
        await this.maybeFinish();
      }
    } catch (err) {
      this.deps.log.error({ err }, 'run.schedule_failed');
      void this.failRun(`Scheduling failed: ${(err as Error).message}`).catch(() => {});
    }
  }

  private launchReady(): void {
    // Nodes parked for their provider were ready first: they are looked at first, in order.
    const parked = this.providerLine?.takeAll() ?? [];
    let entry: NodeEntry | undefined;
    while (this.runSlots.free && (entry = parked.shift() ?? this.ready.shift())) {
      const provider = this.deps.providerOf?.(entry.plan);
      if (provider !== undefined && this.budget.over) {
        // Checked before the attempt asks for anything: it stays ready, and the run pauses once
        // what is running has ended (nothing is killed).
        this.budget.reached = true;
        parked.unshift(entry);
        this.deps.log.info({ nodeId: entry.plan.id, spentUsd: this.budget.spentUsd, budgetUsd: this.budget.usd }, 'run.budget_reached');
        break;
      }
      if (provider !== undefined && this.providerLine && !this.providerLine.take(entry, provider)) continue;
      this.launch(entry, provider);
    }
    this.providerLine?.putBack(parked);
  }

  private launch(node: NodeEntry, provider: string | undefined): void {
    node.status = 'running';
    let tokens: number | undefined;
    // A node that waits for other runs holds no global slot (their nodes take theirs).
    const outsideLimit = this.deps.handlers.handlerFor(node.plan).waitsForRuns === true;
    if (!outsideLimit) this.runSlots.take();
    const task = (
      outsideLimit
        ? this.runAttempt(node).then((value) => ({ dropped: false as const, value }))
        : this.deps.limiter.runUnlessAborted(() => this.runAttempt(node), this.queueAbort.signal)
    )
      .then((ran) => {
        // Dropped from the queue before it started (cancel, shutdown, drain): nothing ran.
        if (ran.dropped) node.status = 'pending';
        else {
          if ('tokens' in ran.value) tokens = ran.value.tokens;
          this.onOutcome(node, ran.value);
        }
      })
      .catch((err: unknown) => {
        this.deps.log.error({ err, nodeId: node.plan.id }, 'node.schedule_failed');
        this.onOutcome(node, { status: 'failed', error: (err as Error).message, failureKind: 'transient' });
      })
      // The attempt's end (and its spend) is committed: the budget is checked against it.
      .then(() =>
        provider !== undefined
          ? this.budget.refresh(async () => (await this.deps.store.getRun(this.run.id))?.metadata.totals?.total_cost_usd, this.deps.log)
          : undefined,
      )
      .finally(() => {
        if (provider !== undefined) this.deps.providerSlots?.release(provider, tokens);
        if (!outsideLimit) this.runSlots.release();
        this.inflight.delete(task);
        this.kick();
      });
    this.inflight.add(task);
  }

  /** One attempt through the node's handler. A handler that throws is a bug: the attempt is a
   * transient failure, logged, and goes through the retry policy like any other. */
  private async runAttempt(entry: NodeEntry): Promise<AttemptOutcome> {
    const held = entry.heldAttempt;
    delete entry.heldAttempt;
    if (!held) entry.attempts += 1;
    // Queued for a global slot before the budget was reached: it does not start now.
    if (this.deps.providerOf?.(entry.plan) !== undefined && this.budget.over) {
      this.budget.reached = true;
      return { status: 'not_started' };
    }
    entry.invocation ??= { id: randomUUID(), startedAt: new Date(clockNow()).toISOString() };
    const identity = { invocation: entry.invocation, attempt: held ?? { id: randomUUID(), number: entry.attempts } };
    try {
      const handler = this.deps.handlers.handlerFor(entry.plan);
      const outcome = await handler.runAttempt({
        node: entry.plan, path: entry.path, identity, signal: this.attemptAbort.signal, ...(held ? { continued: true } : {}),
      });
      if (outcome.status === 'waiting') entry.heldAttempt = identity.attempt;
      // A node suspended on something outside the run (a child run) may be continued in place.
      if (outcome.status === 'suspended' && outcome.approval.type === 'child_workflow') entry.heldAttempt = identity.attempt;
      return outcome;
    } catch (err) {
      this.deps.log.error({ err, nodeId: entry.plan.id }, 'node.attempt_crashed');
      return { status: 'failed', error: `the attempt crashed: ${(err as Error).message}`, failureKind: 'transient' };
    }
  }

  private onOutcome(entry: NodeEntry, outcome: AttemptOutcome): void {
    switch (outcome.status) {
      case 'completed': {
        // A node that had a prior success and produced the same output again leaves its cached
        // dependants valid.
        const changed = entry.priorFingerprint === undefined || fingerprintOfText(outcome.output) !== entry.priorFingerprint;
        this.candidates.push(...this.table.settle(entry, 'completed', { output: outcome.output, changed }));
        return;
      }
      case 'halted':
        this.candidates.push(...this.table.settle(entry, 'completed', { output: outcome.output }));
        void this.halt(entry.plan.id, outcome.reason).catch((err: unknown) => this.deps.log.error({ err }, 'run.halt_failed'));
        return;
      case 'suspended':
        entry.status = 'suspended';
        this.suspended.set(entry, outcome.approval);
        return;
      case 'waiting':
        if (this.stopping) {
          entry.status = 'pending';
          return;
        }
        this.timers.waitUntil(entry, outcome.wakeAt);
        return;
      case 'not_started':
        entry.attempts -= 1;
        entry.status = 'pending';
        return;
      case 'cancelled':
        // Interrupted attempts run again as a new attempt when the run is next driven.
        entry.status = 'pending';
        return;
      case 'failed': {
        const decision = decideRetry(entry.plan.retry, outcome, entry.attempts);
        if (!decision.retry) {
          this.candidates.push(...this.table.settle(entry, 'failed', { error: outcome.error }));
        } else if (this.stopping) {
          entry.status = 'pending';
        } else {
          this.timers.retryAfter(entry, decision.delayMs);
        }
      }
    }
  }

  private async maybeFinish(): Promise<void> {
    if (this.finished || this.ending || this.inflight.size || (this.stopping && !this.settled)) return;
    if (!this.table.allTerminal()) {
      if (this.budget.reached) await this.pauseForBudget();
      else if (this.suspended.size && !this.ready.length && !this.timers.retrying && !this.timers.waiting) await this.pause();
      else await this.maybeSleep();
      return;
    }
    const outcome = summariseOutcome(this.plan.workflowName, this.table.values());
    // From the run's first start, across take-overs and restarts.
    const durationMs = Date.now() - Date.parse(this.run.started_at ?? this.run.created_at);
    const event =
      outcome.status === 'completed'
        ? newRunLevelEvent(this.run, 'workflow_completed', { duration_ms: durationMs })
        : newRunLevelEvent(this.run, 'workflow_failed', { error: outcome.error, duration_ms: durationMs });
    await this.finish(outcome.status, outcome.error, [event]);
  }

  /**
   * Every node that can run has run, and a gate waits for a person: the run is recorded paused
   * with what it waits for, and let go. A paused run holds nothing here (no scheduler, no timer,
   * no lease); the answer's job rebuilds it from its events.
   */
  private async pause(): Promise<void> {
    const [entry, approval] = this.suspended.entries().next().value!;
    const reason =
      approval.type === 'child_workflow'
        ? `Blocked on child run ${approval.childRunId} at '${entry.path}': ${approval.message}`
        : `Approval required at '${entry.path}': ${approval.message}`;
    const event = newRunLevelEvent(this.run, 'workflow_paused', { reason, nodeId: entry.path, type: approval.type });
    await this.finish('paused', null, [event], approvalPatch(approval, this.run.metadata.rejections?.[entry.path]));
  }

  /**
   * An AI attempt was held back by the run's budget and nothing runs any more: the run is recorded
   * paused with why (`workflow_paused`, metadata.budget_pause) and let go like a run paused at a
   * gate. Ready nodes, retries and waits hold nothing and continue when the run is resumed.
   */
  private async pauseForBudget(): Promise<void> {
    this.letGoOfWaiting();
    const spent = this.budget.spentUsd;
    const budget = this.budget.usd!;
    const reason = budgetPauseReason(spent, budget);
    const event = newRunLevelEvent(this.run, 'workflow_paused', { reason, type: 'budget', spentUsd: spent, budgetUsd: budget });
    await this.finish('paused', null, [event], budgetPausePatch(spent, budget));
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
    this.sleeping = this.sleep(wakeAt).finally(() => (this.sleeping = undefined));
    await this.sleeping;
  }

  private async sleep(wakeAt: number): Promise<void> {
    const at = new Date(wakeAt).toISOString();
    let slept = false;
    try {
      slept = await this.deps.store.sleepRun({ runId: this.run.id, ownerId: this.deps.ownerId, wakeAt: at });
    } catch (err) {
      this.deps.log.warn({ err }, 'run.sleep_failed');
    }
    if (!slept || this.finished || this.ending) return;
    this.finished = true;
    this.timers.letGo();
    this.deps.log.info({ wakeAt: at }, 'run.sleeping');
    this.resolveDone('released');
  }

  private async failRun(error: string): Promise<void> {
    if (this.finished || this.ending) return;
    this.stop('cancel');
    await this.settleInflight();
    await this.pumpIdle();
    await this.finish('failed', error, [newRunLevelEvent(this.run, 'workflow_failed', { error })]);
  }

  /** Commits the run's terminal state, retrying until it commits; only then is the run done. */
  private finish(status: RunStatus, error: string | null, events: NewRunEvent[], metadataPatch?: Record<string, unknown>): Promise<void> {
    this.ending ??= (async () => {
      const committed = await commitTerminalTransition(
        this.deps.store,
        { runId: this.run.id, ownerId: this.deps.ownerId, status, error, release: true, events, ...(metadataPatch ? { metadataPatch } : {}) },
        this.deps.log,
      );
      this.finished = true;
      if (committed) this.deps.log.info({ status, ...(error !== null ? { error } : {}) }, 'run.finished');
      this.resolveDone(committed ? status : 'released');
    })();
    return this.ending;
  }
}
