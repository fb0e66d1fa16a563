import { z } from 'zod';
import { inputValueSchema } from '../../shared/input-value.js';

/**
 * The trace of a walk over a workflow's graph with stubs in place of work (dry-run-walk.ts):
 * what `POST /api/workflows/{name}/dry-run` answers (wire/dry-run.ts gives it to the API's
 * OpenAPI document and the CLI), and what `cairn workflow run --dry-run` prints.
 */

/** The written mode of a node: the key that says what it does. */
export const dryRunNodeKindSchema = z.enum(['prompt', 'command', 'bash', 'script', 'loop', 'loop_group', 'approval', 'cancel', 'wait', 'github', 'workflow']);
export type DryRunNodeKind = z.infer<typeof dryRunNodeKindSchema>;

/**
 * What a real run would do with the node, as far as a walk without work can tell:
 * `run`; `skip` (a trigger rule or a `when:` decided it on values known now); `conditional`
 * (its `when:`, or an upstream node's, depends on an output only a real run produces); `fail`
 * (the node cannot start: an unknown provider, a missing command file, a reference that cannot
 * be read); `not_reached` (a `cancel:` node before it ends the run).
 */
export const dryRunDecisionSchema = z.enum(['run', 'skip', 'conditional', 'fail', 'not_reached']);
export type DryRunDecision = z.infer<typeof dryRunDecisionSchema>;

export const dryRunModelSchema = z.object({
  provider: z.string(),
  /** null: the provider's own default model. */
  model: z.string().nullable(),
  effort: z.string().optional(),
  /** Where the model came from: the node, the workflow, a config layer, or the provider's default. */
  source: z.enum(['node', 'workflow', 'config', 'provider_default']),
  /** The tier or alias the model was looked up through. */
  preset: z.string().optional(),
});
export type DryRunModel = z.infer<typeof dryRunModelSchema>;

export const dryRunNodeSchema = z.object({
  /** The node's path: its id, or `<group>/<id>` for a loop_group's body node. */
  id: z.string(),
  kind: dryRunNodeKindSchema,
  dependsOn: z.array(z.string()),
  triggerRule: z.string(),
  when: z.string().optional(),
  decision: dryRunDecisionSchema,
  /** Why the node is skipped, conditional, failed or not reached. */
  reason: z.string().optional(),
  /** The provider and model an AI node (prompt, command, AI loop) would call, resolved as a run resolves them. */
  model: dryRunModelSchema.optional(),
  /** The node's text with references filled in: a prompt, a shell or script body, an approval message, a child's input. */
  text: z.string().optional(),
  /** Nodes whose stub output stands in `text` (as `<dry-run output of ID>`). */
  stubbed: z.array(z.string()).optional(),
  /** What the kind does, in a sentence (an approval taken as approved, one loop iteration, a fan-out's items). */
  detail: z.string().optional(),
  /** The stub output later nodes read as this node's output. */
  output: z.string().optional(),
});
export type DryRunNode = z.infer<typeof dryRunNodeSchema>;

export const dryRunTraceSchema = z.object({
  dryRun: z.literal(true),
  workflow: z.string(),
  /** The run's inputs as a run would get them (declared defaults applied). */
  inputs: z.record(z.string(), inputValueSchema),
  /** Every node, its loop_group bodies' nodes after their group, in a topological order (dependencies first). */
  nodes: z.array(dryRunNodeSchema),
  counts: z.object({
    run: z.number().int(),
    skip: z.number().int(),
    conditional: z.number().int(),
    fail: z.number().int(),
    not_reached: z.number().int(),
  }),
  /** Things the walk cannot stand in for, said once (values only a real run has). */
  notes: z.array(z.string()),
});
export type DryRunTrace = z.infer<typeof dryRunTraceSchema>;
