import type { NodePlanner, PlannedNode } from '../run/run-plan.js';
import type { WorkflowNode } from '../../workflow/schema/node-schema.js';

/** The path segment of a loop's body (`<loop>/body`) and of the completion check (`<loop>/until_bash`). */
export const LOOP_BODY_ID = 'body';
export const UNTIL_BASH_ID = 'until_bash';

/** Iteration control shared by `loop` and `loop_group` nodes (see loop-driver.ts). */
export interface LoopControl {
  maxIterations: number;
  /** The completion signal (`<promise>X</promise>`, or X alone on the output's last line). */
  until?: string;
  /** A boolean field of the iteration's JSON output: `true` is the completion signal (`loop.until_field`). */
  untilField?: string;
  /** The `until_bash` check, planned as a bash node run after an iteration that gave no signal (exit 0 = done). */
  untilBash?: PlannedNode;
  interactive: boolean;
  /** The interactive gate's message before substitution. */
  gateMessage?: string;
  signalCompletes: boolean;
}

/** The iteration control as a `loop:` or `loop_group:` block writes it; `bodyIds`: the body's node ids. */
export function loopControlOf(
  block: { max_iterations: number; until?: string | undefined; until_bash?: string | undefined; interactive?: boolean | undefined; gate_message?: string | undefined; signal_completes?: boolean | undefined },
  bodyIds: readonly string[],
  planner: NodePlanner,
): LoopControl {
  // A body node may be called `until_bash`: the check then takes another segment.
  const checkId = bodyIds.includes(UNTIL_BASH_ID) ? `${UNTIL_BASH_ID}~check` : UNTIL_BASH_ID;
  return {
    maxIterations: block.max_iterations,
    ...(block.until !== undefined ? { until: block.until } : {}),
    ...(block.until_bash !== undefined ? { untilBash: planner.planNode({ id: checkId, bash: block.until_bash } as WorkflowNode) } : {}),
    interactive: block.interactive === true,
    ...(block.gate_message !== undefined ? { gateMessage: block.gate_message } : {}),
    signalCompletes: block.signal_completes === true,
  };
}
