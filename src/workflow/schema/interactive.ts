import type { WorkflowNode } from './node-schema.js';
import type { WorkflowDefinition } from './workflow-schema.js';

/**
 * Whether a run of this workflow needs a person in the loop, and so should run in the
 * foreground. Upstream infers it for workflows that gate (an `approval:` node or an interactive
 * loop) without declaring `interactive: true`; `inferred` says that happened, so the caller can
 * tell the author to declare it.
 */
export function interactivityOf(workflow: Pick<WorkflowDefinition, 'interactive' | 'nodes'>): {
  interactive: boolean;
  inferred: boolean;
} {
  if (workflow.interactive !== undefined) return { interactive: workflow.interactive, inferred: false };
  const gates = hasGate(workflow.nodes);
  return { interactive: gates, inferred: gates };
}

function hasGate(nodes: readonly WorkflowNode[]): boolean {
  return nodes.some(
    (n) =>
      'approval' in n ||
      ('loop' in n && n.loop.interactive === true) ||
      ('loop_group' in n && (n.loop_group.interactive === true || hasGate(n.loop_group.nodes))),
  );
}
