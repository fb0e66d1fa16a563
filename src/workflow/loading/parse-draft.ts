import type { GraphNode } from '../graph/graph.js';
import { describeIssue, describeValueType } from './issue-text.js';
import { hintForUnknownWorkflowKey, nearMissKey, reportNearMiss } from './key-hints.js';
import type { DefinitionNode } from '../schema/node-schema.js';
import { parseNode } from './parse-node.js';
import { findUnknownKeys, isPlainObject } from './unknown-keys.js';
import { inertWorkflowKeyWarnings } from './inert-keys.js';
import { inputEnvName } from '../substitution/variables.js';
import { knownWorkflowKeys, workflowRootSchema, type WorkflowDefinitionDraft } from '../schema/workflow-schema.js';
import { triggerInputProblems } from '../triggers/trigger-schema.js';
import { concurrencyKeyProblems } from '../schema/concurrency.js';

/**
 * The first stage of loading: schema checks of the top level and of every node, and the parse
 * warnings. It needs nothing outside the definition itself, so discovery caches its result per
 * file; the graph and reference checks that need other workflows come after (see
 * `validate-definition.ts`).
 */

/** The top-level settings of a workflow (everything but its nodes). */
export type WorkflowRootSettings = Omit<WorkflowDefinitionDraft, 'nodes'>;

export interface ParsedDraft {
  /** Present when the top level and every node parsed. */
  draft: WorkflowDefinitionDraft | undefined;
  errors: string[];
  warnings: string[];
  /** The top level, when it parsed (even if a node did not). */
  root: WorkflowRootSettings | undefined;
  /** The nodes that parsed, even when others did not, so their references are still checked. */
  nodes: DefinitionNode[];
  /** `{ id, depends_on }` of every node with an id, for graph checks even when a node is broken. */
  skeleton: GraphNode[];
  /** Input names as written, for `$INPUTS.<name>` checks even when the top level is broken. */
  declaredInputs: string[];
}

export const legacyStepsError =
  "`steps:` format has been removed. Workflows use `nodes:` (a DAG) exclusively; convert each step to a node and chain them with depends_on.";

export const nodesMappingError = "'nodes:' must be a list of nodes (each item starting with '- id:'), not a mapping";

/** Parses a definition object (a YAML file's content or a request body). */
export function parseDraft(raw: unknown): ParsedDraft {
  if (!isPlainObject(raw)) {
    const error = 'Workflow definition must be a mapping with name, description and nodes';
    return { draft: undefined, root: undefined, errors: [error], warnings: [], nodes: [], skeleton: [], declaredInputs: [] };
  }
  const errors: string[] = [];
  const warnings: string[] = [];
  const name = typeof raw.name === 'string' && raw.name.trim() !== '' ? raw.name.trim() : undefined;
  const label = `Workflow '${name ?? '(unnamed)'}'`;

  for (const key of ['name', 'description'] as const) {
    const problem = requiredTextProblem(key, raw[key]);
    if (problem) errors.push(problem);
  }
  if (raw.steps !== undefined) errors.push(legacyStepsError);
  else if (isPlainObject(raw.nodes)) errors.push(nodesMappingError);
  else if (!Array.isArray(raw.nodes) || raw.nodes.length === 0) errors.push("Workflow must have 'nodes:' configuration");

  for (const key of Object.keys(raw)) {
    if (key === 'steps') continue;
    if (!knownWorkflowKeys.has(key)) {
      const meant = nearMissKey(key, knownWorkflowKeys);
      if (meant) reportNearMiss(label, key, meant, errors, warnings);
      else warnings.push(`${label}: unknown key '${key}' will be ignored.${hintForUnknownWorkflowKey(key)}`);
    } else if (key !== 'nodes') {
      const schema = workflowRootSchema.shape[key as keyof typeof workflowRootSchema.shape];
      for (const unknown of findUnknownKeys(schema, raw[key], `${key}.`)) {
        const meant = nearMissKey(unknown.key, unknown.known);
        if (meant) reportNearMiss(label, unknown.path, meant, errors, warnings);
        else warnings.push(`${label}: unknown key '${unknown.path}' will be ignored.`);
      }
    }
  }

  warnings.push(...inertWorkflowKeyWarnings(raw, label));

  const root = workflowRootSchema.safeParse(raw);
  if (!root.success) {
    for (const issue of root.error.issues) {
      if (['name', 'description', 'nodes'].includes(String(issue.path[0]))) continue;
      errors.push(describeIssue(issue));
    }
  }
  if (root.success) {
    errors.push(
      ...checkInputNames(root.data.inputs ?? {}),
      ...triggerInputProblems(root.data.triggers, root.data.inputs),
      ...concurrencyKeyProblems(root.data.concurrency, root.data.inputs),
    );
  }

  const rawNodes: unknown[] = Array.isArray(raw.nodes) ? raw.nodes : [];
  const nodes: DefinitionNode[] = [];
  rawNodes.forEach((rawNode, index) => {
    const parsed = parseNode(rawNode, index);
    errors.push(...parsed.errors);
    warnings.push(...parsed.warnings);
    // A node with an invalid field still has its references checked (its `salvaged` form).
    const checkable = parsed.node ?? parsed.salvaged;
    if (checkable) nodes.push(checkable);
  });

  const skeleton = skeletonOf(rawNodes);
  const declaredInputs = isPlainObject(raw.inputs) ? Object.keys(raw.inputs) : [];
  const settings = root.success ? (({ nodes: _nodes, modelReasoningEffort: _mre, ...rest }) => rest)(root.data) : undefined;
  if (!root.success || errors.length > 0) {
    return { draft: undefined, root: settings, errors, warnings, nodes, skeleton, declaredInputs };
  }
  const { modelReasoningEffort, ...rest } = root.data;
  const draft: WorkflowDefinitionDraft = { ...rest, nodes };
  applyDeprecations(draft, modelReasoningEffort, label, warnings);
  dropConflictingInputFlags(draft, label, warnings);
  return { draft, root: settings, errors, warnings, nodes, skeleton, declaredInputs };
}

/** A required text field: missing (absent, null or blank, upstream's text), or of the wrong type. */
function requiredTextProblem(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    return `Missing required field '${key}'`;
  }
  return typeof value === 'string' ? undefined : `'${key}' must be a string, not ${describeValueType(value)}`;
}

function skeletonOf(rawNodes: unknown[]): GraphNode[] {
  return rawNodes.flatMap((n) => {
    if (!isPlainObject(n) || typeof n.id !== 'string' || n.id.trim() === '') return [];
    const deps = Array.isArray(n.depends_on) ? n.depends_on.filter((d): d is string => typeof d === 'string') : [];
    return [{ id: n.id.trim(), depends_on: deps.map((d) => d.trim()) }];
  });
}

/** Inputs reach shells as `INPUTS_<UPPER_SNAKE>`; two names mapping to one variable would collide. */
function checkInputNames(inputs: Record<string, unknown>): string[] {
  const byEnv = new Map<string, string[]>();
  for (const name of Object.keys(inputs)) {
    const env = inputEnvName(name);
    byEnv.set(env, [...(byEnv.get(env) ?? []), name]);
  }
  return [...byEnv]
    .filter(([, names]) => names.length > 1)
    .map(([env, names]) => `Inputs ${names.map((n) => `'${n}'`).join(' and ')} both map to the environment variable ${env}; rename one`);
}

function applyDeprecations(
  draft: WorkflowDefinitionDraft,
  modelReasoningEffort: WorkflowDefinitionDraft['effort'] | undefined,
  label: string,
  warnings: string[],
): void {
  if (modelReasoningEffort === undefined) return;
  if (draft.effort !== undefined) {
    warnings.push(`${label}: key 'modelReasoningEffort' will be ignored. (Deprecated; 'effort' is set and wins.)`);
    return;
  }
  draft.effort = modelReasoningEffort;
  warnings.push(`${label}: key 'modelReasoningEffort' is deprecated; its value '${modelReasoningEffort}' is used as 'effort'. Write 'effort:' instead.`);
}

function dropConflictingInputFlags(draft: WorkflowDefinitionDraft, label: string, warnings: string[]): void {
  for (const [name, spec] of Object.entries(draft.inputs ?? {})) {
    if (spec.required === true && spec.default !== undefined) {
      delete spec.required;
      warnings.push(
        `${label}: key 'inputs.${name}.required' will be ignored. (An input with a 'default' is never missing; drop one of the two.)`,
      );
    }
  }
}
