import { checkBindings, type BindingLookups } from './check-bindings.js';
import { checkProviderOptions } from './check-provider-options.js';
import { DEFAULT_ASSISTANT } from '../../models/model-binding.js';
import { checkReferences } from './check-references.js';
import { checkShellReferences } from './check-shell-references.js';
import { checkNodeIdLengths } from './check-node-ids.js';
import { expandIncludes, type IncludeResolver } from '../loading/expand-includes.js';
import { describeGraphProblems, type GraphNode } from '../graph/graph.js';
import type { DefinitionNode } from '../schema/node-schema.js';
import { parseDraft, type ParsedDraft } from '../loading/parse-draft.js';
import type { WorkflowDefinition } from '../schema/workflow-schema.js';
import { githubWriteProblems } from '../schema/github-writes.js';

/**
 * Validates a workflow definition and returns every problem found, not only the first: the
 * schema of the top level and of each node, the graph (duplicate ids, unknown dependencies,
 * cycles), references, `when:` expressions, providers and, when the caller can look them up,
 * commands, child workflows and included workflows. Warnings add the references of shell
 * bodies that stand where they are spliced as text or not substituted (check-shell-references),
 * and the node options their providers cannot honour (check-provider-options).
 */

export interface ValidationOptions extends BindingLookups {
  /** Finds a workflow by name for `include:`. Omitted: any `include:` is an error. */
  resolveInclude?: IncludeResolver | undefined;
  /** The provider of AI nodes that name none (the default assistant); omitted: `claude`. */
  defaultProvider?: string | undefined;
}

export type ValidationResult =
  | { valid: true; workflow: WorkflowDefinition; warnings: string[] }
  | { valid: false; errors: string[]; warnings: string[] };

/** Validates a definition object, e.g. the body of `POST /api/workflows/validate`. */
export function validateWorkflowDefinition(raw: unknown, options: ValidationOptions = {}): ValidationResult {
  return completeDraft(parseDraft(raw), options);
}

/**
 * A definition stored after it was validated in full (a run's snapshot), read back by the
 * supervisor: the schema and the graph are checked again, since a row may come from another
 * version or a hand edit and the scheduler relies on both. The cross-node reference, binding and
 * shell checks are not repeated: they produced the errors and warnings the user saw when the run
 * was created, and at 10,000 nodes they are most of validation's cost.
 */
export function validateStoredDefinition(raw: unknown): ValidationResult {
  const parsed = parseDraft(raw);
  const errors = [...parsed.errors];
  append(errors, describeGraphProblems(parsed.skeleton));
  const plainNodes = parsed.nodes.filter((n) => !('include' in n)) as Exclude<DefinitionNode, { include: string }>[];
  if (plainNodes.length !== parsed.nodes.length) errors.push('it holds an include node, which a stored definition never does');
  if (errors.length > 0 || !parsed.draft) return { valid: false, errors: unique(errors), warnings: parsed.warnings };
  return { valid: true, workflow: { ...parsed.draft, nodes: plainNodes }, warnings: parsed.warnings };
}

/** The second stage of loading: include expansion and the checks that span nodes. */
export function completeDraft(parsed: ParsedDraft, options: ValidationOptions = {}): ValidationResult {
  const errors = [...parsed.errors, ...checkNodeIdLengths(parsed.nodes)];
  const warnings = [...parsed.warnings];
  const { draft } = parsed;

  let nodes: readonly DefinitionNode[] = parsed.nodes;
  let graph: readonly GraphNode[] = parsed.skeleton;
  if (draft) {
    const expanded = expandIncludes(draft.nodes, options.resolveInclude, draft.name);
    if (expanded.ok) {
      nodes = expanded.nodes;
      graph = expanded.nodes;
    } else {
      append(errors, expanded.errors);
    }
  }

  append(errors, describeGraphProblems(graph));
  // References are checked on a broken graph too (an unknown dependency, a duplicate id, a
  // cycle), so every problem shows in one pass: the upstream index answers by search there.
  const references = checkReferences(nodes, {
    graph,
    outer: new Map(),
    declaredInputs: parsed.declaredInputs,
    loopBody: undefined,
    label: (id) => `Node '${id}'`,
  });
  append(errors, references);
  const plainNodes = nodes.filter((n) => !('include' in n)) as Exclude<DefinitionNode, { include: string }>[];
  if (draft) append(errors, githubWriteProblems(draft.github, plainNodes));
  append(errors, checkBindings(parsed.root ?? {}, plainNodes, options));
  // Warnings only: such a body is valid, but a reference in it may fail or not be substituted.
  append(warnings, checkShellReferences(plainNodes));
  // Warnings only: an option the node's provider cannot take, named rather than dropped.
  if (draft) append(warnings, checkProviderOptions(draft, plainNodes, options.defaultProvider ?? DEFAULT_ASSISTANT));

  if (errors.length > 0 || !draft) return { valid: false, errors: unique(errors), warnings };
  return { valid: true, workflow: { ...draft, nodes: plainNodes }, warnings };
}

/** `push(...items)` without its limit: a spread of ~150,000 messages overflows the stack. */
function append(to: string[], items: readonly string[]): void {
  for (const item of items) to.push(item);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
