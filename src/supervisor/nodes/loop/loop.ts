import type { NodeAttempt, NodeHandler, NodeHandlerSet, AttemptOutcome } from '../../run/node-handler.js';
import type { LoopAction } from './action.js';
import type { VariableValues } from '../../../workflow/substitution/variables.js';
import { LoopDriver, type IterationBody, type IterationOutcome } from '../loop-driver.js';
import { fullText, type LoopHistory } from '../loop-history.js';
import { runBodyAttempt } from '../loop-body-attempt.js';
import { stripPromiseTags } from '../loop-signal.js';

/**
 * `loop:` nodes: the body (a `loop.bash` shell body, or a prompt / command, which run through
 * the handler of AI nodes) runs once per iteration at `<loop>/body`, each iteration a new
 * invocation whose `loopPath` is `[{ groupId: <loop>, iteration }]`. It reads the previous
 * iteration's output as `$LOOP_PREV_OUTPUT` and a person's input at an interactive pause as
 * `$LOOP_USER_INPUT`. The iteration control is the LoopDriver's.
 */
export class LoopNodeHandler implements NodeHandler<LoopAction> {
  constructor(
    private readonly driver: LoopDriver,
    /** The run's handler set: the body runs through the handler of its own kind. */
    private readonly handlers: () => NodeHandlerSet,
  ) {}

  runAttempt(attempt: NodeAttempt<LoopAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    return this.driver.runAttempt(attempt, action, new LoopBody(action, this.handlers()));
  }
}

class LoopBody implements IterationBody {
  constructor(
    private readonly action: LoopAction,
    private readonly handlers: NodeHandlerSet,
  ) {}

  private bodyPath(attempt: { path: string }): string {
    return `${attempt.path}/${this.action.body.id}`;
  }

  async run(attempt: NodeAttempt, iteration: number, variables: VariableValues, history: LoopHistory): Promise<IterationOutcome> {
    const path = this.bodyPath(attempt);
    const recorded = history.bodyRows(iteration).get(path);
    if (recorded?.status === 'completed') return { status: 'completed', output: await fullText(recorded.output) };
    return runBodyAttempt(this.handlers.handlerFor(this.action.body), attempt, {
      node: this.action.body,
      path,
      iteration,
      maxIterations: this.action.maxIterations,
      variables,
      recorded,
    });
  }

  async recordedOutput(attempt: NodeAttempt, iteration: number, history: LoopHistory): Promise<string> {
    const row = history.bodyRows(iteration).get(this.bodyPath(attempt));
    return row?.status === 'completed' ? stripPromiseTags(await fullText(row.output)) : '';
  }
}
