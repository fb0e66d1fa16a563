import { randomUUID } from 'node:crypto';
import type { AttemptOutcome, BodyScope, NodeAttempt, NodeHandler } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import type { VariableValues } from '../../workflow/substitution/variables.js';
import type { IterationOutcome } from './loop-driver.js';
import type { RecordedBodyRow } from './loop-history.js';

/**
 * One attempt of a node inside a loop's iteration (a loop's body, a loop_group's body node),
 * through the handler of its own kind. Each iteration is a new invocation, its `loopPath` the
 * enclosing loops plus this one; an iteration's attempt that a shutdown or a supervisor's death
 * cut short is run again as the next attempt of the same invocation.
 */
export async function runBodyAttempt(
  handler: NodeHandler,
  loop: NodeAttempt,
  body: {
    node: PlannedNode;
    path: string;
    iteration: number;
    maxIterations: number;
    variables: VariableValues;
    recorded: RecordedBodyRow | undefined;
    scope?: BodyScope;
  },
): Promise<IterationOutcome> {
  const { recorded } = body;
  const again = recorded !== undefined && (recorded.interrupted || recorded.status === 'started');
  const now = new Date().toISOString();
  const outcome: AttemptOutcome = await handler.runAttempt({
    node: body.node,
    path: body.path,
    identity: {
      invocation: again ? recorded.invocation : { id: randomUUID(), startedAt: now },
      attempt: { id: randomUUID(), number: again ? recorded.attempts + 1 : 1 },
    },
    signal: loop.signal,
    loopPath: [...(loop.loopPath ?? []), { groupId: loop.path, iteration: body.iteration }],
    variables: body.variables,
    diagnostics: { iteration: body.iteration, maxIterations: body.maxIterations },
    ...(body.scope ? { scope: body.scope } : {}),
  });
  switch (outcome.status) {
    case 'completed':
    case 'failed':
    case 'cancelled':
    case 'not_started':
      return outcome;
    case 'halted':
      return { status: 'completed', output: outcome.output };
    default:
      return {
        status: 'failed',
        error: `Node '${body.node.id}' inside a loop cannot ${outcome.status === 'suspended' ? 'wait for an approval' : 'wait'} in this version of Cairn`,
        failureKind: 'config',
      };
  }
}
