import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import { describeNode } from '../../workflow/describe-node.js';
import { topologicalOrder } from '../../workflow/graph.js';
import { scanReferences } from '../../workflow/references.js';
import { DEFAULT_ON_REJECT_MAX_ATTEMPTS, DEFAULT_RETRY_DELAY_MS, type TriggerRule } from '../../workflow/node-blocks.js';
import type { WorkflowNode } from '../../workflow/node-schema.js';
import type { Effort } from '../../workflow/node-blocks.js';
import type { WorkflowDefinition } from '../../workflow/workflow-schema.js';

/**
 * What the scheduler needs to know about each node of a run, compiled once from the run's
 * definition snapshot when the run is claimed.
 */
export interface PlannedNode {
  id: string;
  /** The contract's `node` group for this node's records. */
  descriptor: NodeDescriptor;
  dependsOn: readonly string[];
  triggerRule: TriggerRule;
  when: string | undefined;
  /** How the node executes; `unsupported` nodes fail with a clear configuration error. */
  action: NodeAction;
  retry: RetryPolicy | undefined;
  /** `always_run: true`: on resume, a prior success is discarded (`reset`) and the node runs again. */
  alwaysRun: boolean;
}

export interface ExecAction {
  type: 'exec';
  runtime: 'sh' | 'bun' | 'uv';
  legacyType: 'bash' | 'script';
  /** The body before substitution. */
  source: string;
  deps: readonly string[];
  timeoutMs: number;
}

/** A `prompt:` or `command:` node: one provider call per attempt (supervisor/nodes/agent.ts). */
export interface AgentAction {
  type: 'agent';
  /** The prompt text (before substitution), or the command file to load. */
  source: { kind: 'inline'; prompt: string } | { kind: 'command'; name: string };
  /** The node's own `provider` / `model` (the binding is resolved with the workflow's and config's). */
  provider: string | undefined;
  model: string | undefined;
  effort: Effort | undefined;
  outputFormat: Record<string, unknown> | undefined;
  systemPrompt: string | undefined;
  /** The node's `idle_timeout`, when it sets one. */
  idleTimeoutMs: number | undefined;
}

/** An `approval:` gate: suspends for a person's answer (see supervisor/nodes/gate.ts). */
export interface GateAction {
  type: 'gate';
  /** The message before substitution (`$node.output` references are filled in when it is reached). */
  message: string;
  captureResponse: boolean;
  onReject?: { body: { kind: 'bash' | 'prompt'; source: string }; maxAttempts: number };
  decisions?: readonly { id: string; label?: string }[];
}

/** A `cancel:` node: ends the run cancelled with its reason. */
export interface HaltAction {
  type: 'halt';
  reason: string;
}

/** A `wait:` node: a durable timer. */
export interface WaitAction {
  type: 'wait';
  durationMs?: number;
  /** An ISO-8601 moment, or a `$node.output[.field]` reference to one (substituted when reached). */
  until?: string;
  message?: string;
}

export type NodeAction = ExecAction | AgentAction | GateAction | HaltAction | WaitAction | UnsupportedAction;

export interface UnsupportedAction {
  type: 'unsupported';
  /** The contract's record kind, e.g. `agent`, `gate`, `loop`. */
  kind: string;
  reason: string;
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

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;

/**
 * AI nodes without a `retry:` block still retry what retrying can fix (transient, rate-limited
 * and overloaded failures): 3 attempts in all, 3 s base delay doubling, as upstream.
 */
export const DEFAULT_AI_RETRY: RetryPolicy = { maxAttempts: 3, delayMs: DEFAULT_RETRY_DELAY_MS, onError: 'transient' };

/** Compiles the definition snapshot of a run (already validated when the run was created). */
export function compileRunPlan(definition: WorkflowDefinition): RunPlan {
  const nodes = definition.nodes.map(planNode);
  return {
    workflowName: definition.name,
    nodes,
    order: topologicalOrder(nodes.map((n) => ({ id: n.id, depends_on: [...n.dependsOn] }))),
    referencedOutputs: referencedOutputsOf(definition.nodes),
  };
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

function planNode(node: WorkflowNode): PlannedNode {
  const descriptor = describeNode(node);
  return {
    id: node.id,
    descriptor,
    dependsOn: node.depends_on ?? [],
    triggerRule: node.trigger_rule ?? 'all_success',
    when: node.when,
    action: actionOf(node, descriptor),
    retry:
      'retry' in node && node.retry
        ? {
            maxAttempts: node.retry.max_attempts,
            delayMs: node.retry.delay_ms ?? DEFAULT_RETRY_DELAY_MS,
            onError: node.retry.on_error ?? 'transient',
          }
        : 'prompt' in node || 'command' in node
          ? DEFAULT_AI_RETRY
          : undefined,
    alwaysRun: 'always_run' in node && node.always_run === true,
  };
}

function actionOf(node: WorkflowNode, descriptor: NodeDescriptor): NodeAction {
  if ('prompt' in node || 'command' in node) {
    return {
      type: 'agent',
      source: 'prompt' in node ? { kind: 'inline', prompt: node.prompt } : { kind: 'command', name: node.command },
      provider: node.provider,
      model: node.model,
      effort: node.effort,
      outputFormat: node.output_format,
      systemPrompt: node.systemPrompt,
      idleTimeoutMs: node.idle_timeout,
    };
  }
  if ('bash' in node) {
    return { type: 'exec', runtime: 'sh', legacyType: 'bash', source: node.bash, deps: [], timeoutMs: node.timeout ?? DEFAULT_EXEC_TIMEOUT_MS };
  }
  if ('script' in node) {
    return {
      type: 'exec', runtime: node.runtime, legacyType: 'script', source: node.script,
      deps: node.deps ?? [], timeoutMs: node.timeout ?? DEFAULT_EXEC_TIMEOUT_MS,
    };
  }
  if ('approval' in node) {
    const { message, capture_response: capture, on_reject: onReject, decisions } = node.approval;
    return {
      type: 'gate',
      message,
      captureResponse: capture === true,
      ...(onReject
        ? {
            onReject: {
              body: onReject.bash !== undefined ? { kind: 'bash', source: onReject.bash } : { kind: 'prompt', source: onReject.prompt ?? '' },
              maxAttempts: onReject.max_attempts ?? DEFAULT_ON_REJECT_MAX_ATTEMPTS,
            },
          }
        : {}),
      ...(decisions ? { decisions: decisions.map((d) => (d.label !== undefined ? { id: d.id, label: d.label } : { id: d.id })) } : {}),
    };
  }
  if ('cancel' in node) return { type: 'halt', reason: node.cancel };
  if ('wait' in node) {
    const { duration_ms: durationMs, until, message } = node.wait;
    return {
      type: 'wait',
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  }
  const what = descriptor.kind === 'agent' ? 'AI (prompt/command) nodes' : `'${descriptor.kind}' nodes`;
  return {
    type: 'unsupported',
    kind: descriptor.kind,
    reason: `Node '${node.id}': ${what} cannot run yet in this version of Cairn (no executor for them); only bash and script nodes run. Remove the node or run the workflow where this node kind is supported.`,
  };
}
