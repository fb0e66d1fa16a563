import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import type { WorkflowNode } from '../../workflow/schema/node-schema.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import type { ChildWorkflowLookup } from '../children/child-runs.js';
import type { ChildRunSignals } from '../children/child-signals.js';
import type { NodeHandler, NodeHandlerSet } from '../run/node-handler.js';
import type { NodePlanner, PlanLevel, PlannedAction, PlannedNode, RetryPolicy, RunPlan } from '../run/run-plan.js';
import type { RunServices } from '../run/run-services.js';

/**
 * One node kind, the supervisor's side: everything the engine needs to know about it, in one
 * place. The plan compiler, the scheduler, the take-over and the scheduler factory ask the
 * registry (node-kinds.ts), which asks the kind; none of them names a kind. A kind whose attempts
 * run on a worker thread has its other side in `worker/nodes/<kind>/` (worker/nodes/worker-kind.ts).
 */
export interface NodeKind<A extends PlannedAction = PlannedAction> {
  /** The `type` of its actions. */
  readonly type: A['type'];
  /** Its action, when the written node is one of this kind's; undefined: not this kind's. */
  plan(node: WorkflowNode, planner: NodePlanner, descriptor: NodeDescriptor): A | undefined;
  /** The retry policy its nodes get without a `retry:` block. */
  readonly defaultRetry?: RetryPolicy;
  /** What it fills in once every node of its level is planned (an AI node's session source). */
  link?(node: PlannedNode<A>, written: WorkflowNode, level: KindPlanLevel): PlannedNode<A>;
  /** The path segment of the AI session a node of this kind leaves, for `context: shared` / `{ resume }`. */
  sessionSegment?(node: PlannedNode<A>, kinds: KindPlanLevel): string | undefined;
  /** Makes its handler for one run. */
  handler(run: KindRun): NodeHandler<A>;
  /** The provider whose slot its node takes before it runs (none: no provider slot). */
  slotProvider?(node: PlannedNode<A>, run: KindRun): string | undefined;
  /** What a take-over does with its nodes (restore-run.ts). */
  readonly restore?: {
    /** Paths under the node where its inner attempts run (closed at a take-over like a top-level attempt). */
    innerPathPrefixes?(node: PlannedNode<A>): readonly string[];
    /** Cut short between passes, it goes on with the same invocation (its recorded progress). */
    continuesAfterInterruption?: boolean;
  };
}

/** A plan level as a kind's `link` sees it: the level's nodes, and the session each leaves. */
export interface KindPlanLevel extends PlanLevel {
  sessionSegmentOf(node: PlannedNode): string | undefined;
}

/** What the supervisor gives every run's kinds: `workflow:` nodes' workflows and the news of their children. */
export interface SupervisorKindDeps {
  children: { lookup: ChildWorkflowLookup; signals: ChildRunSignals };
}

/** A run as one kind sees it when it makes its handler. */
export interface KindRun {
  services: RunServices;
  supervisor: SupervisorKindDeps;
  /** The run's handler set: a node a kind runs inside its own attempt (a body, a rework) runs through its kind's handler. */
  handlers(): NodeHandlerSet;
  /** The provider slot of another node (a loop's body, a rework). */
  slotProviderOf(node: PlannedNode): string | undefined;
  /** Plans another definition (a child workflow run in this run) with the same kinds. */
  compile(definition: WorkflowDefinition): RunPlan;
}
