import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptResult, ExecAttemptTask } from '../../worker/attempt-protocol.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Run, RunStatus } from '../../store/schemas/run.js';
import type { Store, StoreConfig } from '../../store/open-store.js';
import type { Logger } from '../../shared/log.js';
import { dependantsOf } from '../../workflow/graph.js';
import { evaluateTriggerRule, type TerminalOutcome } from './trigger-rule.js';
import type { AttemptLimiter } from '../process/limits.js';
import type { PlannedNode, RunPlan } from './run-plan.js';
import type { AttemptIdentity, NodeEventFactory } from './node-events.js';
import type { NodeState, RestoredRun, SkipDecision } from './run-state.js';
import { runEvent, summariseOutcome } from './run-events.js';

/** Runs one node attempt in a worker (the Piscina pool in production). */
export interface AttemptRunner {
  runAttempt(task: ExecAttemptTask, opts: { signal: AbortSignal }): Promise<AttemptResult>;
}

/** Turns a node's source into what the worker runs, or explains why it cannot run. */
export type PrepareAttempt = (
  node: PlannedNode,
  outputs: ReadonlyMap<string, NodeState>,
) => { ok: true; script: string; env: Record<string, string> } | { ok: false; error: string; failureKind: string };

/** Evaluates a node's `when` condition against upstream outputs: undefined means "run it", a
 * skip decision skips it, `{ fail }` fails it (a reference to a failed producer, say). */
export type CheckCondition = (
  node: PlannedNode,
  states: ReadonlyMap<string, NodeState>,
) => SkipDecision | { fail: string } | undefined;

export interface RunDriverDeps {
  store: Store;
  checkCondition: CheckCondition;
  limiter: AttemptLimiter;
  attempts: AttemptRunner;
  events: NodeEventFactory;
  prepare: PrepareAttempt;
  ownerId: string;
  storeConfig: StoreConfig;
  workingPath: string;
  perRunLimit: number;
  killGraceMs: number;
  log: Logger;
}

type StopMode = 'cancel' | 'shutdown' | 'drain';

/**
 * Drives one run's DAG by readiness: a node is submitted the moment its dependencies are
 * terminal and its trigger rule and `when` condition allow it, under the run's own limit and the
 * global one. The driver is the only writer of the run's state while it owns the run.
 */
export class RunDriver {
  private readonly nodes = new Map<string, NodeState>();
  private readonly planById: ReadonlyMap<string, PlannedNode>;
  private readonly dependants: ReadonlyMap<string, readonly string[]>;
  /** Pending nodes whose dependencies may have just become terminal: the only ones a
   * scheduling pass looks at, so a pass costs O(changed), not O(nodes) (a 1000-node fan-out
   * completes 1000 nodes, each followed by a pass). */
  private readonly candidates = new Set<string>();
  private readonly ready: string[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private readonly queueAbort = new AbortController();
  private readonly attemptAbort = new AbortController();
  private stopping: StopMode | undefined;
  private releasing: Promise<void> | undefined;
  private dirty = false;
  private pumping = false;
  private finished = false;
  private resolveDone!: (status: RunStatus | 'released') => void;
  /** Settles with the run's final status, or `released` when it was handed back at shutdown. */
  readonly done = new Promise<RunStatus | 'released'>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly run: Run,
    private readonly plan: RunPlan,
    private readonly deps: RunDriverDeps,
  ) {
    this.planById = new Map(plan.nodes.map((n) => [n.id, n]));
    this.dependants = dependantsOf(plan.nodes.map((n) => ({ id: n.id, depends_on: n.dependsOn })));
    for (const node of plan.nodes) this.nodes.set(node.id, { status: 'pending', output: '', attempts: 0 });
  }

  get runId(): string {
    return this.run.id;
  }

  /** Begins driving. `restored` carries node states rebuilt from the event log on take-over. */
  async start(restored?: RestoredRun): Promise<void> {
    if (restored) {
      for (const [id, state] of restored.nodes) if (this.nodes.has(id)) this.nodes.set(id, state);
      if (restored.events.length) await this.deps.store.appendEvents(restored.events);
    }
    for (const id of this.plan.order) this.candidates.add(id);
    this.kick();
  }

  /** Cancels the run: drops queued nodes, kills running ones (confirming their processes are
   * gone), then records the run `cancelled`. */
  async cancel(reason = 'Cancelled by user'): Promise<void> {
    if (this.finished) return;
    this.stop('cancel');
    await this.settleInflight();
    await this.finish('cancelled', null, [runEvent(this.run, 'workflow_cancelled', { reason })]);
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
    await this.maybeFinish(true);
    if (this.finished) return;
    this.finished = true;
    await this.deps.store.releaseRuns(this.deps.ownerId, [this.run.id]);
    this.resolveDone('released');
  }

  private stop(mode: StopMode): void {
    if (this.finished) return;
    this.stopping ??= mode;
    this.queueAbort.abort();
    if (mode !== 'drain') this.attemptAbort.abort(mode === 'shutdown' ? { reason: 'shutdown' } : 'cancelled');
  }

  private async settleInflight(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Asks for one more scheduling pass; passes never overlap. */
  private kick(): void {
    this.dirty = true;
    if (!this.pumping) void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.dirty && !this.finished) {
        this.dirty = false;
        const skips = this.settleBlockedNodes();
        // Skip records are durable before any dependant acts on them.
        if (skips.length) await this.deps.store.appendEvents(skips);
        if (!this.stopping) this.launchReady();
        await this.maybeFinish(false);
      }
    } catch (err) {
      this.deps.log.error({ err, runId: this.run.id }, 'run.schedule_failed');
      await this.failRun(`Scheduling failed: ${(err as Error).message}`).catch(() => {});
    } finally {
      this.pumping = false;
    }
  }

  /** Moves every candidate node whose dependencies are terminal to ready, skipped or failed;
   * a node that ends here makes its dependants candidates in turn. Returns the events. */
  private settleBlockedNodes(): NewRunEvent[] {
    const events: NewRunEvent[] = []; // skip records, and failures decided without an attempt
    for (const id of this.candidates) {
      this.candidates.delete(id);
      const state = this.nodes.get(id)!;
      if (state.status !== 'pending') continue;
      const node = this.planned(id);
      const deps = node.dependsOn.map((dep) => ({ id: dep, outcome: this.nodes.get(dep)!.status }));
      if (deps.some((d) => !isTerminal(d.outcome))) continue;
      const verdict = evaluateTriggerRule(node.triggerRule, deps as { id: string; outcome: TerminalOutcome }[]);
      const decision = verdict.run
        ? this.deps.checkCondition(node, this.nodes)
        : ({ reason: 'trigger_rule', cause: verdict.cause } satisfies SkipDecision);
      if (decision && 'fail' in decision) {
        state.status = 'failed';
        state.error = decision.fail;
        events.push(this.deps.events.refused(node, decision.fail));
        this.dependantsAreCandidates(id);
      } else if (decision) {
        state.status = 'skipped';
        events.push(this.deps.events.skipped(node, decision));
        this.dependantsAreCandidates(id);
      } else {
        state.status = 'ready';
        this.ready.push(id);
      }
    }
    return events;
  }

  private dependantsAreCandidates(id: string): void {
    for (const dependant of this.dependants.get(id) ?? []) this.candidates.add(dependant);
  }

  private launchReady(): void {
    while (this.ready.length && this.inflight.size < this.deps.perRunLimit) {
      const id = this.ready.shift()!;
      const state = this.nodes.get(id)!;
      state.status = 'running';
      const task = this.deps.limiter
        .run(() => this.runAttempt(this.planned(id), state), this.queueAbort.signal)
        .then(
          (result) => this.onAttemptSettled(id, state, result),
          () => {
            // Dropped from the queue before it started (cancel, shutdown, drain): nothing ran.
            state.status = 'pending';
          },
        )
        .catch((err: unknown) => {
          this.deps.log.error({ err, runId: this.run.id, nodeId: id }, 'node.attempt_crashed');
          state.status = 'failed';
          state.error = (err as Error).message;
          this.dependantsAreCandidates(id);
        })
        .finally(() => {
          this.inflight.delete(task);
          this.kick();
        });
      this.inflight.add(task);
    }
  }

  private async runAttempt(node: PlannedNode, state: NodeState): Promise<AttemptResult> {
    state.attempts += 1;
    state.invocation ??= { id: randomUUID(), startedAt: new Date().toISOString() };
    const identity: AttemptIdentity = {
      invocation: state.invocation,
      attempt: { id: randomUUID(), number: state.attempts },
    };
    const action = node.action;
    const prepared =
      action.type === 'exec'
        ? this.deps.prepare(node, this.nodes)
        : { ok: false as const, error: action.reason, failureKind: 'config' };
    if (action.type !== 'exec' || !prepared.ok) {
      const refusal = prepared.ok ? { error: 'not executable', failureKind: 'config' } : prepared;
      const result = failedBeforeStart(refusal.error, refusal.failureKind);
      await this.deps.store.appendEvents([this.deps.events.attemptEnded(node, identity, result)]);
      return result;
    }
    const task: ExecAttemptTask = {
      kind: 'exec',
      store: this.deps.storeConfig,
      runId: this.run.id,
      conversationId: this.run.conversation_id,
      path: node.id,
      nodeId: node.id,
      runtime: action.runtime,
      legacyType: action.legacyType,
      invocation: { ...identity.invocation, loopPath: [] },
      attempt: identity.attempt,
      script: prepared.script,
      deps: [...action.deps],
      cwd: this.deps.workingPath,
      env: prepared.env,
      timeoutMs: action.timeoutMs,
      killGraceMs: this.deps.killGraceMs,
    };
    const result = await this.deps.attempts.runAttempt(task, { signal: this.attemptAbort.signal });
    if (!result.recorded) {
      await this.deps.store.appendEvents([this.deps.events.attemptEnded(node, identity, result)]);
    }
    return result;
  }

  private async onAttemptSettled(id: string, state: NodeState, result: AttemptResult): Promise<void> {
    if (result.status === 'completed') {
      state.status = 'completed';
      state.output = result.output;
      this.dependantsAreCandidates(id);
      return;
    }
    if (result.status === 'cancelled' || this.stopping) {
      // Interrupted attempts run again as a new attempt when the run is next driven.
      state.status = 'pending';
      return;
    }
    const retry = this.planned(id).retry;
    const retryable = result.failureKind === 'transient' || retry?.onError === 'all';
    if (retry && retryable && state.attempts < retry.maxAttempts) {
      const delay = retry.delayMs * 2 ** (state.attempts - 1);
      await sleep(delay, undefined, { signal: this.queueAbort.signal }).catch(() => {});
      state.status = this.stopping ? 'pending' : 'ready';
      if (!this.stopping) this.ready.push(id);
      return;
    }
    state.status = 'failed';
    state.error = result.error ?? 'failed';
    this.dependantsAreCandidates(id);
  }

  private async maybeFinish(releasing: boolean): Promise<void> {
    if (this.finished || this.inflight.size || (this.stopping && !releasing)) return;
    const states = [...this.nodes.entries()];
    if (!states.every(([, s]) => isTerminal(s.status))) return;
    const outcome = summariseOutcome(this.plan.workflowName, states);
    // From the run's first start, across take-overs and restarts.
    const durationMs = Date.now() - Date.parse(this.run.started_at ?? this.run.created_at);
    const event =
      outcome.status === 'completed'
        ? runEvent(this.run, 'workflow_completed', { duration_ms: durationMs })
        : runEvent(this.run, 'workflow_failed', { error: outcome.error, duration_ms: durationMs });
    await this.finish(outcome.status, outcome.error, [event]);
  }

  private async failRun(error: string): Promise<void> {
    if (this.finished) return;
    this.stop('cancel');
    await this.settleInflight();
    await this.finish('failed', error, [runEvent(this.run, 'workflow_failed', { error })]);
  }

  private async finish(status: RunStatus, error: string | null, events: NewRunEvent[]): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.deps.store.transitionRun({
      runId: this.run.id,
      ownerId: this.deps.ownerId,
      status,
      error,
      release: true,
      events,
    });
    this.deps.log.info({ runId: this.run.id, status }, 'run.finished');
    this.resolveDone(status);
  }

  private planned(id: string): PlannedNode {
    return this.planById.get(id)!;
  }
}

function isTerminal(status: NodeState['status']): status is TerminalOutcome {
  return status === 'completed' || status === 'failed' || status === 'skipped';
}

function failedBeforeStart(error: string, failureKind: string): AttemptResult {
  return {
    status: 'failed',
    output: '',
    error,
    failureKind,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    exitCode: null,
    signal: null,
    recorded: false,
  };
}
