import { producerOf, type ProducerState } from '../../../workflow/substitution/resolve-output.js';
import type { VariableValues } from '../../../workflow/substitution/variables.js';
import type { CheckCondition } from '../../run/node-context.js';
import type { NodeEventFactory } from '../../run/node-events.js';
import type { AttemptOutcome, BodyScope, NodeAttempt, NodeHandler, NodeHandlerSet } from '../../run/node-handler.js';
import type { PlannedNode } from '../../run/run-plan.js';
import type { LoopGroupAction } from './action.js';
import type { Store } from '../../../store/store.js';
import { runBodyAttempt } from '../loop-body-attempt.js';
import type { IterationBody, IterationOutcome, LoopDriver } from '../loop-driver.js';
import { fullText, type LoopHistory } from '../loop-history.js';
import { decideWave, type BodyNodeState } from '../body-wave.js';

export interface LoopGroupDeps {
  driver: LoopDriver;
  /** The run's handler set: each body node runs through the handler of its own kind. */
  handlers: () => NodeHandlerSet;
  store: Store;
  events: NodeEventFactory;
  checkCondition: CheckCondition;
}

/**
 * `loop_group:` nodes: the body nodes run as a sub-DAG once per iteration, each at
 * `<group>/<id>` with `loopPath` `[{ groupId: <group>, iteration }]`, decided as top-level nodes
 * are (trigger rule, then `when`). A body node reads the outputs of the same iteration's body
 * nodes and of the group's upstream nodes, and `$LOOP_PREV.<id>.output` from the previous
 * iteration. The iteration's output (the group's output when it is the last) is that of the last
 * body node, in dependency order, that completed; the iteration fails when a body node failed.
 * The iteration control is the LoopDriver's.
 */
export class LoopGroupNodeHandler implements NodeHandler<LoopGroupAction> {
  constructor(private readonly deps: LoopGroupDeps) {}

  runAttempt(attempt: NodeAttempt<LoopGroupAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    return this.deps.driver.runAttempt(attempt, action, new GroupBody(action, this.deps));
  }
}


class GroupBody implements IterationBody {
  /** Body outputs of the last iteration this attempt ran (`$LOOP_PREV`). */
  private previous: Map<string, ProducerState> | undefined;

  constructor(
    private readonly action: LoopGroupAction,
    private readonly deps: LoopGroupDeps,
  ) {}

  async run(attempt: NodeAttempt, iteration: number, variables: VariableValues, history: LoopHistory): Promise<IterationOutcome> {
    const previous = this.previous ?? (iteration > 1 ? await this.recordedStates(attempt, iteration - 1, history) : new Map());
    const states = await this.recordedStates(attempt, iteration, history);
    const nodes = this.action.body.order.map((id) => this.action.body.nodes.find((n) => n.id === id)!);
    for (const node of nodes) if (!states.has(node.id)) states.set(node.id, { status: 'pending' });
    const scope: BodyScope = {
      outputs: (id) => this.producer(states, id),
      previousIteration: (id) => previous.get(id) ?? { status: 'skipped' },
    };
    const loopPath = [...(attempt.loopPath ?? []), { groupId: attempt.path, iteration }];
    const place = (node: PlannedNode) => ({ path: `${attempt.path}/${node.id}`, loopPath });

    for (;;) {
      const next = decideWave(nodes, states, scope, this.deps, place);
      if (!next) break;
      const { runnable, decided } = next;
      if (decided.length) await this.deps.store.appendEvents(decided);
      // One body node at a time: the group holds one slot of each limit (global, run, provider),
      // and a process or a provider call of its body is what that slot stands for.
      for (const node of runnable) {
        const outcome = await runBodyAttempt(this.deps.handlers().handlerFor(node), attempt, {
          node,
          path: place(node).path,
          iteration,
          maxIterations: this.action.maxIterations,
          variables,
          recorded: history.bodyRows(iteration).get(place(node).path),
          scope,
        });
        if (outcome.status === 'completed') states.set(node.id, { status: 'completed', output: outcome.output });
        else if (outcome.status === 'failed') states.set(node.id, { status: 'failed', error: outcome.error, failureKind: outcome.failureKind });
        else return outcome;
      }
    }

    this.previous = new Map(nodes.map((n) => [n.id, producerOf(states.get(n.id), n.outputFormat) ?? { status: 'skipped' }]));
    const failed = nodes.find((n) => states.get(n.id)!.status === 'failed');
    if (failed) {
      const state = states.get(failed.id)!;
      return { status: 'failed', error: `body node '${failed.id}' failed: ${state.error ?? 'failed'}`, failureKind: state.failureKind ?? 'exec_failed' };
    }
    return { status: 'completed', output: lastOutput(nodes, states) };
  }

  async recordedOutput(attempt: NodeAttempt, iteration: number, history: LoopHistory): Promise<string> {
    const nodes = this.action.body.order.map((id) => this.action.body.nodes.find((n) => n.id === id)!);
    const states = await this.recordedStates(attempt, iteration, history);
    this.previous = new Map(nodes.map((n) => [n.id, producerOf(states.get(n.id), n.outputFormat) ?? { status: 'skipped' }]));
    return lastOutput(nodes, states);
  }

  /** A body node as its readers see it (with its declared `output_format`); undefined for another id. */
  private producer(states: ReadonlyMap<string, BodyNodeState>, id: string): ProducerState | undefined {
    const node = this.action.body.nodes.find((n) => n.id === id);
    return node ? producerOf(states.get(id), node.outputFormat) : undefined;
  }

  /** What the body nodes of `iteration` recorded: finished ones keep their outcome, the rest run. */
  private async recordedStates(attempt: NodeAttempt, iteration: number, history: LoopHistory): Promise<Map<string, BodyNodeState>> {
    const states = new Map<string, BodyNodeState>();
    const rows = history.bodyRows(iteration);
    for (const node of this.action.body.nodes) {
      const row = rows.get(`${attempt.path}/${node.id}`);
      if (!row) continue;
      if (row.status === 'completed') states.set(node.id, { status: 'completed', output: await fullText(row.output) });
      else if (row.status === 'skipped') states.set(node.id, { status: 'skipped' });
      else if (row.status === 'failed' && !row.interrupted) states.set(node.id, { status: 'failed', error: row.error ?? 'failed' });
    }
    return states;
  }
}


/** The output of the last body node (in dependency order) that completed. */
function lastOutput(nodes: readonly PlannedNode[], states: ReadonlyMap<string, BodyNodeState>): string {
  for (let i = nodes.length - 1; i >= 0; i--) {
    const state = states.get(nodes[i]!.id);
    if (state?.status === 'completed') return state.output ?? '';
  }
  return '';
}
