import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { LoopDriver } from '../loop-driver.js';
import { LOOP_BODY_ID, loopControlOf } from '../loop-control.js';
import type { NodeKind } from '../node-kind.js';
import type { LoopAction } from './action.js';
import { LoopNodeHandler } from './loop.js';

/** `loop:` nodes: the body (a bash body, or an AI node) runs once per iteration at `<loop>/body`, inside the loop's attempt. */
export const loopKind: NodeKind<LoopAction> = {
  type: 'loop',
  plan(node: WorkflowNode, planner) {
    if (!('loop' in node)) return undefined;
    const { loop } = node;
    // The body is planned as the node it stands for, so an AI body runs the way an AI node does;
    // its output_type files are the loop's, written once the loop is done, not per iteration.
    const { loop: _loop, output_type: _outputType, ...keys } = node;
    const bodyNode = (
      loop.bash !== undefined
        ? { id: LOOP_BODY_ID, bash: loop.bash }
        : loop.command !== undefined
          ? { ...keys, id: LOOP_BODY_ID, command: loop.command }
          : { ...keys, id: LOOP_BODY_ID, prompt: loop.prompt ?? '' }
    ) as WorkflowNode;
    const body = planner.planNode(bodyNode);
    const continues = body.action.type === 'agent' && loop.fresh_context !== true;
    return {
      type: 'loop',
      ...loopControlOf(loop, [], planner),
      ...(loop.until_field !== undefined ? { untilField: loop.until_field } : {}),
      body: continues ? { ...body, action: { ...body.action, continueIterations: true } } : body,
      freshContext: loop.fresh_context === true,
    };
  },
  // An AI body's session is the loop's: `context: shared` and `{ resume }` continue it at `<loop>/body`.
  sessionSegment: (node, level) => (level.sessionSegmentOf(node.action.body) !== undefined ? `${node.id}/${LOOP_BODY_ID}` : undefined),
  handler: ({ services, handlers }) =>
    new LoopNodeHandler(
      new LoopDriver({ store: services.store, run: services.run, substituteText: services.context.substituteText, handlers }),
      handlers,
    ),
  // The body runs inside the loop's attempt: the loop takes the slot of the provider its body calls.
  slotProvider: (node, run) => run.slotProviderOf(node.action.body),
  restore: { innerPathPrefixes: (node) => [`${node.id}/`], continuesAfterInterruption: true },
};
