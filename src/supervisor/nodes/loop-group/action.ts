import type { RunPlan } from '../../run/run-plan.js';
import type { LoopControl } from '../loop-control.js';

/** A `loop_group:` node: its body nodes run as a sub-DAG once per iteration, at `<group>/<id>`. */
export interface LoopGroupAction extends LoopControl {
  type: 'loop_group';
  body: RunPlan;
}
