import { randomUUID } from 'node:crypto';
import { attemptEndedEvent, attemptStartedEvent, instancePath, rebuildRunSnapshot, type AttemptRef } from '../../../records/index.js';
import { fanOutInstancesEventOf } from '../../../records/event-data.js';
import type { FanOutInstance } from '../../../records/schemas/fan-out-instances.js';
import type { NodeSnapshot } from '../../../records/run-snapshot.js';
import type { NewRunEvent } from '../../../store/schemas/event.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import { producerOf } from '../../../workflow/substitution/resolve-output.js';
import type { WorkflowDefinition } from '../../../workflow/schema/workflow-schema.js';
import { RUN_SLOT } from '../../run/engine-slots.js';
import { GlobalLine, type GlobalLimiter } from '../../run/global-line.js';
import type { Logger } from '../../../shared/log.js';
import type { CheckCondition } from '../../run/node-context.js';
import type { NodeEventFactory } from '../../run/node-events.js';
import type { AttemptOutcome, BodyScope, NodeAttempt, NodeHandlerSet } from '../../run/node-handler.js';
import { fullOutput } from '../../../records/full-output.js';
import { afterStartRecorded } from '../../run/started-attempt.js';
import type { PlannedNode, RunPlan } from '../../run/run-plan.js';
import type { ChildRunAction } from './action.js';
import { instancesOf, itemText } from './fan-out-items.js';
import type { Slots } from '../../run/slots.js';
import { decideWave, type BodyNodeState } from '../body-wave.js';
import { cancelledFailure, stopRequestOf } from '../../../worker/cancel-reason.js';

export interface InRunFanOutDeps {
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id'>;
  /** The run's handler set: each instance node runs through the handler of its own kind. */
  handlers: () => NodeHandlerSet;
  events: NodeEventFactory;
  checkCondition: CheckCondition;
  /** The global limit: each instance node's attempt takes a slot, as a top-level node's does (waiting in its line). */
  limiter: GlobalLimiter;
  log: Logger;
  /** The run's own limit: each instance node holds one of its slots while it runs. */
  runSlots: Pick<Slots, 'run'>;
  /** Plans the child workflow with the run's node kinds. */
  compile: (definition: WorkflowDefinition) => RunPlan;
}



type ItemResult = string | { failed: true; error: string; status: string };

/**
 * An in-run fan-out (`compose_fan_out`): each item runs the child workflow's nodes as an
 * instance inside this run, at `<node>[<ordinal>]` (`compose_fan_out_instance`), its nodes at
 * `<node>[<ordinal>]/<id>` with the item as `$ARGUMENTS`; at most `max_parallel` instances at
 * once. Before any instance starts, the instance snapshot (`fan_out_instances`: ordinal, an
 * identity derived from the item, the item) is written; whoever runs the node again (a
 * take-over, a resume) reads the first snapshot, not the items anew, and skips every instance
 * that completed, reusing its output. The wrapper's record is `aggregate`, each instance's
 * `instance`: they restate their nodes' spend (bash and script nodes have none).
 */
export class InRunFanOut {
  private readonly globalLine: GlobalLine;

  constructor(private readonly deps: InRunFanOutDeps) {
    this.globalLine = new GlobalLine({ run: deps.run, store: deps.store, log: deps.log, limiter: deps.limiter });
  }

  /** A child workflow its items can run as in-run instances: only bash and script nodes (no provider spend, nothing waits). */
  canRun(definition: WorkflowDefinition): boolean {
    return this.deps.compile(definition).nodes.every((n) => n.action.type === 'exec');
  }

  async run(attempt: NodeAttempt, action: ChildRunAction, items: readonly unknown[], child: WorkflowDefinition): Promise<AttemptOutcome> {
    const { store, run } = this.deps;
    const plan = this.deps.compile(child);
    const snapshot = rebuildRunSnapshot(await store.listRunEvents(run.id));
    let instances: readonly FanOutInstance[] | undefined = snapshot.fanOutInstances.get(attempt.path);
    const wrapper: AttemptRef = {
      runId: run.id,
      conversationId: run.conversation_id,
      path: attempt.path,
      node: { id: attempt.node.id, kind: 'compose_fan_out' },
      invocation: { ...attempt.identity.invocation, loopPath: [...(attempt.loopPath ?? [])] },
      attemptId: attempt.identity.attempt.id,
      startedAt: new Date().toISOString(),
      accounting: 'aggregate',
    };
    const opening = [];
    if (!instances) {
      instances = instancesOf(items);
      opening.push(fanOutInstancesEventOf(run.id, attempt.path, instances));
    }
    if (!attempt.continued) opening.push(attemptStartedEvent(wrapper));
    await store.appendEvents(opening.map((e) => ({ ...e, conversation_id: run.conversation_id })));
    const all = instances;
    return afterStartRecorded(() => this.instances({ attempt, wrapper, fan: action.fanOut!, plan, child, instances: all, recorded: snapshot.nodes }));
  }

  /** Runs the instances under the wrapper's recorded start, then records its end. */
  private async instances(fanned: {
    attempt: NodeAttempt;
    wrapper: AttemptRef;
    fan: NonNullable<ChildRunAction['fanOut']>;
    plan: RunPlan;
    child: WorkflowDefinition;
    instances: readonly FanOutInstance[];
    recorded: ReadonlyMap<string, NodeSnapshot>;
  }): Promise<AttemptOutcome> {
    const { attempt, wrapper, fan, plan, child, instances, recorded } = fanned;
    const { store } = this.deps;
    const results: ItemResult[] = new Array<ItemResult>(instances.length);
    const rows = new RowBatch(store);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < instances.length && !attempt.signal.aborted) {
        const instance = instances[next++]!;
        const result = await this.instance(attempt, plan, child, instance, recorded, rows);
        if (result === undefined) return;
        results[instance.ordinal] = result;
      }
    };
    await Promise.all(Array.from({ length: Math.min(fan.maxParallel, instances.length) }, lane));
    // Every instance's rows are committed before the wrapper's end.
    await rows.flushed();

    const durationMs = Math.max(0, Date.now() - Date.parse(wrapper.startedAt));
    if (attempt.signal.aborted) {
      const shutdown = typeof attempt.signal.reason === 'object' && attempt.signal.reason?.reason === 'shutdown';
      await store.appendEvents([
        shutdown
          ? attemptEndedEvent(wrapper, { status: 'failed', error: 'Interrupted by a shutdown', failureKind: 'transient', interrupted: true }, durationMs)
          : attemptEndedEvent(wrapper, { status: 'failed', error: cancelledFailure(stopRequestOf(attempt.signal.reason)).error, failureKind: 'cancelled', retryable: false }, durationMs),
      ]);
      return { status: 'cancelled' };
    }
    const output = `[${results.map((r) => JSON.stringify(r)).join(',')}]`;
    const failed = results.filter((r) => typeof r !== 'string').length;
    if (failed && fan.join === 'all_success') {
      const error = `Node '${attempt.node.id}': ${failed} of ${results.length} fan-out items failed (join: all_success)`;
      await store.appendEvents([
        attemptEndedEvent(wrapper, { status: 'failed', error, failureKind: 'child_failed', retryable: false, output: { text: output } }, durationMs),
      ]);
      return { status: 'failed', error, failureKind: 'child_failed', retryable: false };
    }
    await store.appendEvents([attemptEndedEvent(wrapper, { status: 'completed', output: { text: output } }, durationMs)]);
    return { status: 'completed', output };
  }

  /** One instance: reused when it completed before, else its nodes run (those that completed before are reused). Undefined: stopped. */
  private async instance(
    attempt: NodeAttempt,
    plan: RunPlan,
    child: WorkflowDefinition,
    instance: FanOutInstance,
    recorded: ReadonlyMap<string, NodeSnapshot>,
    rows: RowBatch,
  ): Promise<ItemResult | undefined> {
    const path = instancePath(attempt.path, instance.ordinal);
    const prior = recorded.get(path);
    if (prior?.status === 'completed' && prior.reusable) return fullOutput(prior);
    const { run } = this.deps;
    const text = itemText(instance.item);
    const now = new Date().toISOString();
    const ref: AttemptRef = {
      runId: run.id,
      conversationId: run.conversation_id,
      path,
      node: { id: attempt.node.id, kind: 'compose_fan_out_instance' },
      invocation: { id: randomUUID(), startedAt: now, loopPath: [...(attempt.loopPath ?? [])] },
      attemptId: randomUUID(),
      startedAt: now,
      accounting: 'instance',
    };
    const states = new Map<string, BodyNodeState>();
    for (const node of plan.nodes) {
      const snap = recorded.get(`${path}/${node.id}`);
      if (snap?.status === 'completed' && snap.reusable) states.set(node.id, { status: 'completed', output: await fullOutput(snap) });
      else states.set(node.id, { status: 'pending' });
    }
    const stopped = await this.runNodes(attempt, plan, path, text, states);
    const durationMs = Math.max(0, Date.now() - Date.parse(now));
    const diagnostics = { identity: instance.identity, ordinal: instance.ordinal };
    if (stopped) {
      rows.add([
        attemptStartedEvent(ref),
        attemptEndedEvent(ref, { status: 'failed', error: 'Stopped before it finished', failureKind: 'transient', interrupted: true, diagnostics }, durationMs),
      ]);
      return undefined;
    }
    const failed = plan.nodes.find((n) => states.get(n.id)!.status === 'failed');
    if (failed) {
      const error = `node '${failed.id}' failed: ${states.get(failed.id)!.error ?? 'failed'}`;
      rows.add([attemptStartedEvent(ref), attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'child_failed', retryable: false, diagnostics }, durationMs)]);
      return { failed: true, error, status: 'failed' };
    }
    const output = resultOf(child, plan, states);
    rows.add([attemptStartedEvent(ref), attemptEndedEvent(ref, { status: 'completed', output: { text: output }, diagnostics }, durationMs)]);
    return output;
  }

  /** The instance's nodes as a sub-DAG, decided as top-level nodes are. True when the attempt was stopped. */
  private async runNodes(attempt: NodeAttempt, plan: RunPlan, path: string, text: string, states: Map<string, BodyNodeState>): Promise<boolean> {
    const nodes = plan.order.map((id) => plan.nodes.find((n) => n.id === id)!);
    const scope: BodyScope = { outputs: (id) => producerOf(states.get(id), plan.nodes.find((n) => n.id === id)?.outputFormat) };
    const place = (node: PlannedNode) => ({ path: `${path}/${node.id}`, loopPath: [...(attempt.loopPath ?? [])] });
    for (;;) {
      const next = decideWave(nodes, states, scope, this.deps, place);
      if (!next) return false;
      const { runnable, decided } = next;
      if (decided.length) await this.deps.store.appendEvents(decided);
      const outcomes = await Promise.all(
        runnable.map((node) => {
          const now = new Date().toISOString();
          const run = () =>
            this.deps.handlers().handlerFor(node).runAttempt({
              node,
              path: place(node).path,
              identity: { invocation: { id: randomUUID(), startedAt: now }, attempt: { id: randomUUID(), number: 1 } },
              signal: attempt.signal,
              ...(attempt.loopPath ? { loopPath: attempt.loopPath } : {}),
              variables: { ARGUMENTS: text, USER_MESSAGE: text },
              scope,
            });
          // The run's slot first, then the global one, as the scheduler takes them.
          return this.deps.runSlots
            .run(RUN_SLOT, () => this.globalLine.run(place(node).path, node.id, run, attempt.signal), attempt.signal)
            .then((ran): AttemptOutcome => (ran.dropped || ran.value.dropped ? { status: 'not_started' } : ran.value.value));
        }),
      );
      let stopped = false;
      runnable.forEach((node, i) => {
        const outcome = outcomes[i]!;
        if (outcome.status === 'completed') states.set(node.id, { status: 'completed', output: outcome.output });
        else if (outcome.status === 'failed') states.set(node.id, { status: 'failed', error: outcome.error });
        else stopped = true;
      });
      if (stopped) return true;
    }
  }
}

/**
 * An instance's own rows (its start and its end, written together once it ended) are committed in
 * batches: each commit syncs the log, and one per instance would cost a fan-out of `bash: true`
 * items a third of its speed. Rows waiting here are not lost to a crash in any way that matters:
 * an instance without its end runs again, and the nodes it ran that completed are reused.
 */
class RowBatch {
  private pending: NewRunEvent[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: Store, private readonly delayMs = 20) {}

  add(events: readonly NewRunEvent[]): void {
    this.pending.push(...events);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => {});
    }, this.delayMs);
  }

  /** Resolves once every row added so far is committed (throws when the store refused them). */
  async flushed(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    await this.flush();
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.store.appendEvents(batch).then(
      () => undefined,
      (err: unknown) => {
        // Kept for the next flush: rows are retried, never dropped.
        this.pending = [...batch, ...this.pending];
        throw err;
      },
    ).finally(() => (this.flushing = undefined));
    await this.flushing;
  }
}


/** An instance's output, as a child run's would be: its `returns:` node's, else its last node's (in the order written) that completed and nothing depends on. */
function resultOf(child: WorkflowDefinition, plan: RunPlan, states: ReadonlyMap<string, BodyNodeState>): string {
  const done = (id: string) => (states.get(id)?.status === 'completed' ? (states.get(id)!.output ?? '') : undefined);
  if (child.returns !== undefined && done(child.returns) !== undefined) return done(child.returns)!;
  const needed = new Set(plan.nodes.flatMap((n) => n.dependsOn));
  for (let i = plan.nodes.length - 1; i >= 0; i--) {
    const id = plan.nodes[i]!.id;
    if (!needed.has(id) && done(id) !== undefined) return done(id)!;
  }
  return '';
}
