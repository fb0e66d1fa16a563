import type { AgentNodeOptions, PermissionLevel } from '../../../shared/providers/agent-options.js';
import type { Effort } from '../../../models/effort.js';

/** A `prompt:` or `command:` node: one provider call per attempt (supervisor/nodes/agent/agent.ts). */
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
