import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import { describeNode } from '../../workflow/schema/describe-node.js';
import { topologicalOrder } from '../../workflow/graph/graph.js';
import { scanReferences } from '../../workflow/substitution/references.js';
import { DEFAULT_RETRY_DELAY_MS, type TriggerRule } from '../../workflow/schema/node-blocks.js';
import type { WorkflowNode } from '../../workflow/schema/node-schema.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';

/**
 * How a node executes, as its kind planned it: each kind (supervisor/nodes/<kind>/) has an action
 * type of its own, told apart by `type`. The plan compiler and the scheduler read only `type`.
 */
export interface PlannedAction {
  readonly type: string;
}

/**
 * What the scheduler needs to know about each node of a run, compiled once from the run's
 * definition snapshot when the run is claimed.
 */
export interface PlannedNode<A extends PlannedAction = PlannedAction> {
  id: string;
  /** The contract's `node` group for this node's records. */
  descriptor: NodeDescriptor;
  dependsOn: readonly string[];
  triggerRule: TriggerRule;
  when: string | undefined;
  /** How the node executes, as its kind planned it; `unsupported` nodes fail with a clear configuration error. */
  action: A;
  retry: RetryPolicy | undefined;
  /** `always_run: true`: on resume, a prior success is discarded (`reset`) and the node runs again. */
  alwaysRun: boolean;
  /**
   * The node's declared `output_format` (AI, loop and workflow nodes): what a reader's
   * `$id.output.<field>` is checked against, wherever the node runs (top level, a loop body, a
   * fan-out instance) and after a resume.
   */
  outputFormat?: Record<string, unknown>;
  /** The node's `output_type`: its output is also written to `$ARTIFACTS_DIR/nodes/` (output-type-handlers.ts). */
  outputType?: string;
}

export interface RetryPolicy {
  maxAttempts: number;
  delayMs: number;
  onError: 'transient' | 'all';
}

export interface RunPlan {
  workflowName: string;
  nodes: readonly PlannedNode[];
  /** Node ids in a topological order (dependencies first). */
  order: readonly string[];
  /** Nodes whose output some node references (`$id.output` anywhere in its definition): the
   * only outputs the scheduler keeps in memory once they are produced. */
  referencedOutputs: ReadonlySet<string>;
}

/** What a kind's planning may ask of the compiler: to plan a node it holds (a loop's body), or a sub-plan (a group's body). */
export interface NodePlanner {
  planNode(node: WorkflowNode): PlannedNode;
  planNodes(workflowName: string, nodes: readonly WorkflowNode[]): RunPlan;
}

/** One level of a plan (a workflow's nodes, a loop_group's body), once each of its nodes is planned. */
export interface PlanLevel {
  byId: ReadonlyMap<string, PlannedNode>;
}

/**
 * The compiler's side of the node kinds (supervisor/nodes/node-kinds.ts): which action a written
 * node plans to, the retry a kind gets without a `retry:` block, and what a kind fills in once its
 * level is planned (an AI node's session source).
 */
export interface PlanKinds {
  actionOf(node: WorkflowNode, descriptor: NodeDescriptor, planner: NodePlanner): PlannedAction;
  defaultRetryOf(action: PlannedAction): RetryPolicy | undefined;
  linked(node: PlannedNode, written: WorkflowNode, level: PlanLevel): PlannedNode;
}

/** Compiles the definition snapshot of a run (already validated when the run was created). */
export function compileRunPlan(definition: WorkflowDefinition, kinds: PlanKinds): RunPlan {
  return new PlanCompiler(kinds).planNodes(definition.name, definition.nodes);
}

class PlanCompiler implements NodePlanner {
  constructor(private readonly kinds: PlanKinds) {}

  planNodes(workflowName: string, defined: readonly WorkflowNode[]): RunPlan {
    const planned = defined.map((n) => this.planNode(n));
    const level: PlanLevel = { byId: new Map(planned.map((n) => [n.id, n])) };
    const nodes = planned.map((node, i) => this.kinds.linked(node, defined[i]!, level));
    return {
      workflowName,
      nodes,
      order: topologicalOrder(nodes.map((n) => ({ id: n.id, depends_on: [...n.dependsOn] }))),
      referencedOutputs: referencedOutputsOf(defined),
    };
  }

  planNode(node: WorkflowNode): PlannedNode {
    const descriptor = describeNode(node);
    const action = this.kinds.actionOf(node, descriptor, this);
    return {
      id: node.id,
      descriptor,
      dependsOn: node.depends_on ?? [],
      triggerRule: node.trigger_rule ?? 'all_success',
      when: node.when,
      action,
      retry:
        'retry' in node && node.retry
          ? {
              maxAttempts: node.retry.max_attempts,
              delayMs: node.retry.delay_ms ?? DEFAULT_RETRY_DELAY_MS,
              onError: node.retry.on_error ?? 'transient',
            }
          : this.kinds.defaultRetryOf(action),
      alwaysRun: 'always_run' in node && node.always_run === true,
      ...('output_format' in node && node.output_format !== undefined ? { outputFormat: node.output_format } : {}),
      ...('output_type' in node && node.output_type !== undefined ? { outputType: node.output_type } : {}),
    };
  }
}

/** Every node id referenced as an output producer by any field of any node. */
function referencedOutputsOf(nodes: readonly WorkflowNode[]): Set<string> {
  const referenced = new Set<string>();
  for (const node of nodes) {
    for (const ref of scanReferences(JSON.stringify(node))) {
      if (ref.kind === 'output' || ref.kind === 'loop_prev') referenced.add(ref.nodeId);
    }
  }
  return referenced;
}
