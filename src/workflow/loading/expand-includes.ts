import { sinksOf } from '../graph/graph.js';
import { bindIncludeInputs, substituteIncludeInputs } from './include-inputs.js';
import type { DefinitionNode, IncludeNode, WorkflowNode } from '../schema/node-schema.js';
import { mapNodeTexts } from '../schema/node-texts.js';
import { replaceReferences } from '../substitution/references.js';
import type { WorkflowDefinitionDraft } from '../schema/workflow-schema.js';

/**
 * Inlines `include: <workflow>` nodes at load time. The included workflow's nodes are copied in
 * renamed `<includeId>__<nodeId>` (references among them renamed too); its roots inherit the
 * include node's `depends_on`, `when` and `trigger_rule`; `depends_on: [<includeId>]` elsewhere
 * waits for all of its sinks; `$<includeId>.output` reads its `returns:` node, or its first sink.
 * The block's `$INPUTS.<name>` are replaced by the include's `with:` values (include-inputs.ts).
 */

export type IncludeResolver = (name: string) => WorkflowDefinitionDraft | undefined;

export const MAX_INCLUDE_DEPTH = 3;

export type ExpansionResult = { ok: true; nodes: WorkflowNode[] } | { ok: false; errors: string[] };

/** Expands every include of a workflow; `workflowName` starts the cycle check. */
export function expandIncludes(
  nodes: readonly DefinitionNode[],
  resolve: IncludeResolver | undefined,
  workflowName: string,
): ExpansionResult {
  return expand(nodes, resolve, [workflowName]);
}

interface InlinedBlock {
  sinks: string[];
  output: string;
}

function expand(nodes: readonly DefinitionNode[], resolve: IncludeResolver | undefined, stack: string[]): ExpansionResult {
  const errors: string[] = [];
  const out: WorkflowNode[] = [];
  const blocks = new Map<string, InlinedBlock>();

  for (const node of nodes) {
    if (!('include' in node)) {
      out.push(node);
      continue;
    }
    const target = resolve?.(node.include);
    if (!target) {
      errors.push(`Node '${node.id}': include '${node.include}' cannot be resolved (no loadable workflow named '${node.include}')`);
      continue;
    }
    if (stack.includes(target.name)) {
      errors.push(`Node '${node.id}': include cycle: ${[...stack, target.name].join(' → ')}`);
      continue;
    }
    if (stack.length > MAX_INCLUDE_DEPTH) {
      errors.push(`Node '${node.id}': includes nest deeper than ${MAX_INCLUDE_DEPTH} levels`);
      continue;
    }
    const inner = expand(target.nodes, resolve, [...stack, target.name]);
    if (!inner.ok) {
      errors.push(...inner.errors.map((e) => `Node '${node.id}' (include '${node.include}'): ${e}`));
      continue;
    }
    const inlined = inline(node, inner.nodes, target);
    if (!inlined.ok) {
      errors.push(...inlined.errors);
      continue;
    }
    blocks.set(node.id, inlined.block);
    out.push(...inlined.nodes);
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, nodes: blocks.size === 0 ? out : out.map((n) => pointAtBlocks(n, blocks)) };
}

function inline(
  include: IncludeNode,
  inner: WorkflowNode[],
  target: WorkflowDefinitionDraft,
): { ok: true; nodes: WorkflowNode[]; block: InlinedBlock } | { ok: false; errors: string[] } {
  const { returns } = target;
  const inputs = bindIncludeInputs(include, target);
  if (!inputs.ok) return inputs;
  const prefix = `${include.id}__`;
  const innerIds = new Set(inner.map((n) => n.id));
  const rename = (id: string): string => (innerIds.has(id) ? prefix + id : id);
  const errors: string[] = [];

  const where = `Node '${include.id}' (include '${include.include}')`;
  const nodes = inner.map((original) => {
    // Inputs after renaming: a value's references name nodes of the including workflow.
    const bound = substituteIncludeInputs(renameReferences(original, innerIds, prefix), inputs, where);
    if (!bound.ok) {
      errors.push(...bound.errors);
      return original;
    }
    const node = bound.node as WorkflowNode & Record<string, unknown>;
    node.id = prefix + original.id;
    const deps = (original.depends_on ?? []).map(rename);
    if (deps.length === 0) {
      // A root of the block: it runs where the include node would have.
      if (include.depends_on?.length) node.depends_on = [...include.depends_on];
      if (include.trigger_rule) node.trigger_rule = include.trigger_rule;
      if (include.when) {
        if (node.when && (node.when.includes('||') || include.when.includes('||'))) {
          errors.push(`Node '${include.id}': its 'when' cannot be combined with the 'when' of included node '${original.id}' (both use '||')`);
        }
        node.when = node.when ? `${include.when} && ${node.when}` : include.when;
      }
    } else {
      node.depends_on = deps;
    }
    if ('context' in original && typeof original.context === 'object') {
      node.context = { resume: rename(original.context.resume) };
    }
    return node as WorkflowNode;
  });
  if (errors.length > 0) return { ok: false, errors };
  if (returns !== undefined && !innerIds.has(returns)) {
    return { ok: false, errors: [`Node '${include.id}': included workflow '${include.include}' returns unknown node '${returns}'`] };
  }
  const sinks = sinksOf(nodes);
  const output = returns !== undefined ? prefix + returns : sinks[0]!;
  return { ok: true, nodes, block: { sinks, output } };
}

/** Renames references to the block's own nodes (`$x.output`, `$x.field` in `when`). */
function renameReferences(node: WorkflowNode, ids: ReadonlySet<string>, prefix: string): WorkflowNode {
  return mapNodeTexts(node, (text, { field }) =>
    field === 'when'
      ? renameConditionRefs(text, (id) => (ids.has(id) ? prefix + id : undefined))
      : replaceReferences(text, (ref) =>
          ref.kind === 'output' && ids.has(ref.nodeId)
            ? `$${prefix}${ref.nodeId}.output${ref.field ? `.${ref.field}` : ''}`
            : undefined,
        ),
  );
}

/** Points `depends_on` and references at an inlined block's sinks and output node. */
function pointAtBlocks(node: WorkflowNode, blocks: ReadonlyMap<string, InlinedBlock>): WorkflowNode {
  const out = mapNodeTexts(node, (text, { field }) =>
    field === 'when'
      ? renameConditionRefs(text, (id) => blocks.get(id)?.output)
      : replaceReferences(text, (ref) => {
          const block = ref.kind === 'output' ? blocks.get(ref.nodeId) : undefined;
          return block && ref.kind === 'output' ? `$${block.output}.output${ref.field ? `.${ref.field}` : ''}` : undefined;
        }),
  );
  if (node.depends_on?.some((d) => blocks.has(d))) {
    out.depends_on = [...new Set(node.depends_on.flatMap((d) => blocks.get(d)?.sinks ?? [d]))];
  }
  return out;
}

/** Renames the node id of each `$id.` in a `when:` expression (covers the `$id.field` shorthand). */
function renameConditionRefs(expr: string, rename: (id: string) => string | undefined): string {
  return expr.replace(/\$([A-Za-z_][A-Za-z0-9_-]*)\./g, (whole, id: string) => {
    const renamed = rename(id);
    return renamed === undefined ? whole : `$${renamed}.`;
  });
}
