import type { NewRunEvent } from '../../store/schemas/event.js';
import type { CheckCondition } from '../run/node-context.js';
import type { NodeEventFactory, NodePlace } from '../run/node-events.js';
import type { BodyScope } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import { evaluateTriggerRule, type TerminalOutcome } from '../../workflow/graph/trigger-rule.js';

/** A body node's state while its body runs (a loop_group iteration, an in-run fan-out instance). */
export interface BodyNodeState {
  status: 'pending' | TerminalOutcome;
  output?: string;
  error?: string;
  failureKind?: string;
}

/**
 * The next wave of a body's nodes, decided as the scheduler decides top-level ones: every pending
 * node whose dependencies have ended is skipped (trigger rule, `when:`), refused (a `when:` that
 * cannot be evaluated: failed, `failureKind: config`) or left to run. `states` is updated for the
 * decided ones; their events are returned for the caller to write. Undefined: nothing is left.
 */
export function decideWave(
  nodes: readonly PlannedNode[],
  states: Map<string, BodyNodeState>,
  scope: BodyScope,
  deps: { checkCondition: CheckCondition; events: NodeEventFactory },
  place: (node: PlannedNode) => NodePlace,
): { runnable: PlannedNode[]; decided: NewRunEvent[] } | undefined {
  const wave = nodes.filter((n) => states.get(n.id)!.status === 'pending' && n.dependsOn.every((d) => states.get(d)?.status !== 'pending'));
  if (wave.length === 0) return undefined;
  const runnable: PlannedNode[] = [];
  const decided: NewRunEvent[] = [];
  for (const node of wave) {
    const upstream = node.dependsOn.map((id) => ({ id, outcome: states.get(id)!.status as TerminalOutcome }));
    const verdict = evaluateTriggerRule(node.triggerRule, upstream);
    const decision = verdict.run ? deps.checkCondition(node, scope) : ({ reason: 'trigger_rule', cause: verdict.cause } as const);
    if (decision && 'fail' in decision) {
      decided.push(deps.events.refused(node, decision.fail, place(node)));
      states.set(node.id, { status: 'failed', error: decision.fail, failureKind: 'config' });
    } else if (decision) {
      decided.push(deps.events.skipped(node, decision, place(node)));
      states.set(node.id, { status: 'skipped' });
    } else {
      runnable.push(node);
    }
  }
  return { runnable, decided };
}
