import type { PlannedNode } from '../../run/run-plan.js';
import type { LoopControl } from '../loop-control.js';

/** A `loop:` node: its body (a bash node, or an AI node) runs once per iteration at `<loop>/body`. */
export interface LoopAction extends LoopControl {
  type: 'loop';
  body: PlannedNode;
  freshContext: boolean;
}
