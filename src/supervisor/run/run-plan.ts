import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import type { AgentNodeOptions, PermissionLevel } from '../../shared/providers/agent-options.js';
import { agentNodeOptionsOf } from '../../workflow/schema/agent-node-options.js';
import { describeNode } from '../../workflow/schema/describe-node.js';
import { topologicalOrder } from '../../workflow/graph/graph.js';
import { scanReferences } from '../../workflow/substitution/references.js';
import {
  DEFAULT_FAN_OUT_MAX_PARALLEL, DEFAULT_ON_REJECT_MAX_ATTEMPTS, DEFAULT_RETRY_DELAY_MS, type TriggerRule,
} from '../../workflow/schema/node-blocks.js';
import type { WorkflowNode } from '../../workflow/schema/node-schema.js';
import type { Effort } from '../../models/effort.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';

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
  /**
   * The node's declared `output_format` (AI, loop and workflow nodes): what a reader's
   * `$id.output.<field>` is checked against, wherever the node runs (top level, a loop body, a
   * fan-out instance) and after a resume.
   */
  outputFormat?: Record<string, unknown>;
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
  /** `context: fresh`: a retry starts a new session instead of continuing the failed attempt's. */
  freshContext: boolean;
  /**
   * `context: shared` (the closest AI node it depends on, `named: false`) or `context: { resume }`
   * (`named: true`): the node whose completed session its first attempt continues. A path segment
   * of this plan, or of the plan around it for a loop_group body node (see agent-session.ts).
   */
  sessionSource?: {
    nodeId: string;
    named: boolean;
    /** The source's path segment: its id, or `<id>/body` for a loop (whose AI body holds the session). */
    segment: string;
    /** A loop_group body node's named source outside its group: a top-level node. */
    outer: boolean;
  };
  /** A loop body with `fresh_context: false`: each iteration after the first continues the previous one's session. */
  continueIterations?: boolean;
  /** The node's own `permissions:`; undefined: the workflow's, else `workspace`. */
  permissions: PermissionLevel | undefined;
  /** The node's provider options as written (the workflow's defaults are applied when it runs). */
  options: AgentNodeOptions;
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

/** Iteration control shared by `loop` and `loop_group` nodes (see supervisor/nodes/loop-driver.ts). */
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

/** A `loop:` node: its body (a bash node, or an AI node) runs once per iteration at `<loop>/body`. */
export interface LoopAction extends LoopControl {
  type: 'loop';
  body: PlannedNode;
  freshContext: boolean;
}

/** A `loop_group:` node: its body nodes run as a sub-DAG once per iteration, at `<group>/<id>`. */
export interface LoopGroupAction extends LoopControl {
  type: 'loop_group';
  body: RunPlan;
}

/**
 * A `workflow:` node: a child run of the named workflow (supervisor/nodes/child-run.ts), or with
 * `fanOut` one child run per item (supervisor/nodes/fan-out.ts).
 */
export interface ChildRunAction {
  type: 'child_run';
  workflow: string;
  /** The child's `$ARGUMENTS` (before substitution); a fan-out's item takes its place. */
  input: string | undefined;
  /** The child's inputs (string values substituted when the node runs). */
  with: Readonly<Record<string, string | number | boolean>> | undefined;
  isolation: 'inherit' | 'worktree';
  fanOut?: {
    items: string; as: string | undefined; maxParallel: number; join: 'all_success' | 'all_done';
    /** As written; undefined: decided when the node runs (FanOutNodeHandler). */
    mode: 'in_run' | 'child_runs' | undefined;
  };
}

export type NodeAction =
  | ExecAction | AgentAction | GateAction | HaltAction | WaitAction | LoopAction | LoopGroupAction | ChildRunAction | UnsupportedAction;

/** The path segment of a loop's body (`<loop>/body`) and of the completion check (`<loop>/until_bash`). */
export const LOOP_BODY_ID = 'body';
export const UNTIL_BASH_ID = 'until_bash';

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
  return planNodes(definition.name, definition.nodes);
}

function planNodes(workflowName: string, defined: readonly WorkflowNode[]): RunPlan {
  const nodes = withSessionSources(defined, defined.map(planNode));
  return {
    workflowName,
    nodes,
    order: topologicalOrder(nodes.map((n) => ({ id: n.id, depends_on: [...n.dependsOn] }))),
    referencedOutputs: referencedOutputsOf(defined),
  };
}

/**
 * The session each `context: shared` or `context: { resume }` node continues: the named node, or
 * the closest AI node among its dependencies (breadth first, in `depends_on` order, through
 * nodes that are not AI nodes). A `shared` node with no AI node upstream has none: it starts fresh.
 */
function withSessionSources(defined: readonly WorkflowNode[], planned: PlannedNode[]): PlannedNode[] {
  const byId = new Map(planned.map((n) => [n.id, n]));
  const holdsSession = (n: PlannedNode | undefined) => n !== undefined && (n.action.type === 'agent' || (n.action.type === 'loop' && n.action.body.action.type === 'agent'));
  const closestAiAncestor = (start: PlannedNode): string | undefined => {
    const seen = new Set<string>();
    let frontier = [...start.dependsOn];
    while (frontier.length > 0) {
      const next: string[] = [];
      for (const id of frontier) {
        if (seen.has(id)) continue;
        seen.add(id);
        const node = byId.get(id);
        if (holdsSession(node)) return id;
        if (node) next.push(...node.dependsOn);
      }
      frontier = next;
    }
    return undefined;
  };
  return planned.map((node, i) => {
    const written = defined[i]!;
    if (node.action.type !== 'agent' || !('context' in written) || written.context === undefined || written.context === 'fresh') return node;
    const id = written.context === 'shared' ? closestAiAncestor(node) : written.context.resume;
    const sourceNode = id === undefined ? undefined : byId.get(id);
    const source =
      id === undefined
        ? undefined
        : {
            nodeId: id,
            named: written.context !== 'shared',
            segment: sourceNode?.action.type === 'loop' ? `${id}/${LOOP_BODY_ID}` : id,
            outer: sourceNode === undefined,
          };
    return source ? { ...node, action: { ...node.action, sessionSource: source } } : node;
  });
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
    ...('output_format' in node && node.output_format !== undefined ? { outputFormat: node.output_format } : {}),
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
      freshContext: node.context === 'fresh',
      permissions: node.permissions,
      options: agentNodeOptionsOf(node),
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
  if ('loop' in node) {
    const { loop } = node;
    // The body is planned as the node it stands for, so an AI body runs the way an AI node does.
    const { loop: _loop, ...keys } = node;
    const bodyNode = (
      loop.bash !== undefined
        ? { id: LOOP_BODY_ID, bash: loop.bash }
        : loop.command !== undefined
          ? { ...keys, id: LOOP_BODY_ID, command: loop.command }
          : { ...keys, id: LOOP_BODY_ID, prompt: loop.prompt ?? '' }
    ) as WorkflowNode;
    const body = planNode(bodyNode);
    return {
      type: 'loop',
      ...loopControlOf(loop, []),
      ...(loop.until_field !== undefined ? { untilField: loop.until_field } : {}),
      body: body.action.type === 'agent' && loop.fresh_context !== true ? { ...body, action: { ...body.action, continueIterations: true } } : body,
      freshContext: loop.fresh_context === true,
    };
  }
  if ('loop_group' in node) {
    const group = node.loop_group;
    return { type: 'loop_group', ...loopControlOf(group, group.nodes.map((n) => n.id)), body: planNodes(node.id, group.nodes) };
  }
  if ('workflow' in node) {
    const fan = node.fan_out;
    return {
      type: 'child_run',
      workflow: node.workflow,
      input: node.input,
      with: node.with,
      isolation: node.isolation ?? 'inherit',
      ...(fan
        ? { fanOut: { items: fan.items, as: fan.as, maxParallel: fan.max_parallel ?? DEFAULT_FAN_OUT_MAX_PARALLEL, join: fan.join ?? 'all_success', mode: fan.mode } }
        : {}),
    };
  }
  const id = (node as { id: string }).id;
  return {
    type: 'unsupported',
    kind: descriptor.kind,
    reason: `Node '${id}': '${descriptor.kind}' nodes cannot run yet in this version of Cairn (no executor for them). Remove the node or run the workflow where this node kind is supported.`,
  };
}

function loopControlOf(
  block: { max_iterations: number; until?: string | undefined; until_bash?: string | undefined; interactive?: boolean | undefined; gate_message?: string | undefined; signal_completes?: boolean | undefined },
  bodyIds: readonly string[],
): LoopControl {
  // A body node may be called `until_bash`: the check then takes another segment.
  const checkId = bodyIds.includes(UNTIL_BASH_ID) ? `${UNTIL_BASH_ID}~check` : UNTIL_BASH_ID;
  return {
    maxIterations: block.max_iterations,
    ...(block.until !== undefined ? { until: block.until } : {}),
    ...(block.until_bash !== undefined ? { untilBash: planNode({ id: checkId, bash: block.until_bash } as WorkflowNode) } : {}),
    interactive: block.interactive === true,
    ...(block.gate_message !== undefined ? { gateMessage: block.gate_message } : {}),
    signalCompletes: block.signal_completes === true,
  };
}
