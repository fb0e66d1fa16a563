import { z } from 'zod';

/**
 * The node an execution record is about. YAML keys map to kinds: `prompt`/`command` → agent,
 * `bash` → exec (sh), `script` → exec (bun|uv), `loop` → loop, `loop_group` → loop_group,
 * `approval` → gate, `cancel` → halt, `wait` → wait, `github` → github (✚), `workflow` → workflow, and the composed
 * fan-out expansion → compose_fan_out / compose_fan_out_instance.
 */

/** How an exec node's body runs: `sh` (bash), `bun` or `uv`. */
export const execRuntimeSchema = z.enum(['sh', 'bun', 'uv']);
export type ExecRuntime = z.infer<typeof execRuntimeSchema>;

export const agentSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('inline') }),
  z.strictObject({ kind: z.literal('command'), name: z.string() }),
]);
export type AgentSource = z.infer<typeof agentSourceSchema>;

const id = z.string().min(1);

export const nodeDescriptorSchema = z.discriminatedUnion('kind', [
  z.strictObject({ id, kind: z.literal('agent'), source: agentSourceSchema }),
  z.strictObject({ id, kind: z.literal('exec'), runtime: execRuntimeSchema }),
  z.strictObject({ id, kind: z.literal('loop'), command: z.string().optional() }),
  z.strictObject({ id, kind: z.literal('loop_group') }),
  z.strictObject({ id, kind: z.literal('gate') }),
  z.strictObject({ id, kind: z.literal('halt') }),
  z.strictObject({ id, kind: z.literal('wait') }),
  /** ✚ Not in the contract: a write to GitHub the engine makes (docs/github.md). */
  z.strictObject({ id, kind: z.literal('github') }),
  z.strictObject({ id, kind: z.literal('workflow'), fanOut: z.literal(true).optional() }),
  z.strictObject({ id, kind: z.literal('compose_fan_out') }),
  z.strictObject({ id, kind: z.literal('compose_fan_out_instance') }),
]);
export type NodeDescriptor = z.infer<typeof nodeDescriptorSchema>;
export type NodeKind = NodeDescriptor['kind'];

/** Every node kind, in contract order. */
export const nodeKinds: readonly NodeKind[] = nodeDescriptorSchema.options.map((o) => o.shape.kind.value);
