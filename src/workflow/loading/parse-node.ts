import { describeIssue } from './issue-text.js';
import {
  knownNodeKeys,
  nodeModeSchemas,
  nodeModes,
  quotedNodeId,
  type DefinitionNode,
  type NodeMode,
  type WorkflowNode,
} from '../schema/node-schema.js';
import { describeIgnoredNodeKey, hintForUnknownNodeKey, nearMissKey, reportNearMiss } from './key-hints.js';
import { declaredKeys, findUnknownKeys, isPlainObject } from './unknown-keys.js';
import { inertNodeKeyWarnings } from './inert-keys.js';

/**
 * Parses one raw node with the schema of its mode. Returns the parsed node (keys that do not
 * apply to the mode stripped), every error, and a warning for every key that was stripped.
 */

export interface ParsedNode {
  node: DefinitionNode | undefined;
  /** When `node` is not there for invalid fields: the node without them, if the rest parses,
   * so that its references and `when:` are still checked in the same pass. */
  salvaged?: DefinitionNode | undefined;
  errors: string[];
  warnings: string[];
}

/** Keys that are an error, not a warning, on these modes: ignoring them would change behaviour. */
const forbiddenKeys: Partial<Record<NodeMode, Record<string, string>>> = {
  loop: { retry: "'retry' is not supported on loop nodes (loop manages its own iteration)" },
  loop_group: { retry: "'retry' is not supported on loop_group nodes (loop_group manages its own iteration)" },
  workflow: {
    retry: "'retry' is not supported on workflow nodes (a retry would orphan the first child run — resume through the parent instead)",
  },
};
const workflowOnlyNodeKeys: Record<string, string> = {
  fan_out: "'fan_out' is only supported on workflow (sub-run) nodes",
  isolation: "'isolation' is only supported on workflow (sub-run) nodes",
};

/** The id used in messages: the node's own, or its 1-based position when it has none. */
export function nodeLabelId(raw: unknown, index: number): string {
  const id = isPlainObject(raw) && typeof raw.id === 'string' ? raw.id.trim() : '';
  return id ? quotedNodeId(id) : `#${index + 1}`;
}

/** Parses a node; `label` is how messages name it (`Node 'x'`, or a loop_group breadcrumb). */
export function parseNode(raw: unknown, index: number, label?: string): ParsedNode {
  const id = nodeLabelId(raw, index);
  const name = label ?? `Node '${id}'`;
  if (!isPlainObject(raw)) {
    return { node: undefined, errors: [`${name}: a node must be a mapping with an 'id' and one mode key`], warnings: [] };
  }

  const present = nodeModes.filter((mode) => raw[mode] !== undefined && raw[mode] !== null);
  if (present.length !== 1) {
    const error =
      present.length === 0
        ? `${name}: must have either ${nodeModes.map((m) => `'${m}'`).join(', ').replace(/, ([^,]*)$/, ', or $1')}`
        : `${name}: ${present.map((m) => `'${m}'`).join(' and ')} are mutually exclusive (a node has exactly one mode key)`;
    return { node: undefined, errors: [error], warnings: [] };
  }
  const mode = present[0]!;
  const schema = nodeModeSchemas[mode];
  const modeKeys = new Set(declaredKeys(schema));
  const errors: string[] = [];
  const warnings: string[] = [];

  for (const key of Object.keys(raw)) {
    const forbidden = forbiddenKeys[mode]?.[key] ?? (mode !== 'workflow' ? workflowOnlyNodeKeys[key] : undefined);
    if (forbidden) {
      errors.push(`${name}: ${forbidden}`);
    } else if (!knownNodeKeys.has(key)) {
      const hint = hintForUnknownNodeKey(key);
      const meant = hint ? undefined : nearMissKey(key, modeKeys, knownNodeKeys);
      if (meant) reportNearMiss(name, key, meant, errors, warnings);
      else warnings.push(`${name}: unknown key '${key}' will be ignored.${hint}`);
    } else if (!modeKeys.has(key)) {
      warnings.push(describeIgnoredNodeKey(name, key, mode));
    } else {
      const nestedSchema = (schema.shape as Record<string, Parameters<typeof findUnknownKeys>[0]>)[key]!;
      for (const unknown of findUnknownKeys(nestedSchema, raw[key], `${key}.`)) {
        const meant = nearMissKey(unknown.key, unknown.known);
        if (meant) reportNearMiss(name, unknown.path, meant, errors, warnings);
        else warnings.push(`${name}: unknown key '${unknown.path}' will be ignored.`);
      }
    }
  }

  // Only where the key applies: on another mode it was dropped with its own warning above.
  warnings.push(...inertNodeKeyWarnings(Object.fromEntries(Object.entries(raw).filter(([key]) => modeKeys.has(key))), name));

  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors.push(`${name}: ${describeIssue(issue)}`);
  }
  if (mode === 'script' && raw.deps !== undefined && raw.runtime === 'bun') {
    warnings.push(`${name}: key 'deps' will be ignored. ('deps' applies only to runtime 'uv'.)`);
  }
  // Each fan-out item is its child's $ARGUMENTS, so an `input` beside `fan_out` has no place:
  // dropped with a warning when the workflow loads (as the upstream does), never refused mid-run.
  const inputUnderFanOut = mode === 'workflow' && raw.input !== undefined && raw.fan_out !== undefined;
  if (inputUnderFanOut) {
    warnings.push(
      `${name}: key 'input' will be ignored: with 'fan_out' each item is its child's $ARGUMENTS ` +
        "(pass the item as an input with 'fan_out.as', and other values with 'with').",
    );
  } else if (mode === 'workflow' && raw.input !== undefined && raw.with !== undefined) {
    errors.push(`${name}: 'input' and 'with' are mutually exclusive on workflow nodes`);
  }

  let body: WorkflowNode[] | undefined;
  if (mode === 'loop_group') {
    const result = parseLoopGroupBody(raw.loop_group, name);
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    body = result.nodes;
  }

  if (errors.length > 0 || !parsed.success) {
    return { node: undefined, salvaged: salvage(schema, raw, parsed.error?.issues ?? []), errors, warnings };
  }
  const node = { ...parsed.data } as Record<string, unknown>;
  if (mode === 'script' && node.runtime === 'bun') delete node.deps;
  if (inputUnderFanOut) delete node.input;
  if (body) node.loop_group = { ...(node.loop_group as object), nodes: body };
  return { node: node as DefinitionNode, errors, warnings };
}

/** `raw` without the top-level fields the issues are about, parsed, if that succeeds. */
function salvage(
  schema: (typeof nodeModeSchemas)[NodeMode],
  raw: Record<string, unknown>,
  issues: readonly { path: readonly PropertyKey[] }[],
): DefinitionNode | undefined {
  if ('loop_group' in raw) return undefined;
  const bad = new Set(issues.map((i) => i.path[0]).filter((k) => k !== undefined));
  const rest = Object.fromEntries(Object.entries(raw).filter(([k]) => !bad.has(k)));
  const again = schema.safeParse(rest);
  return again.success ? (again.data as DefinitionNode) : undefined;
}

function parseLoopGroupBody(
  block: unknown,
  groupName: string,
): { nodes: WorkflowNode[] | undefined; errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!isPlainObject(block) || !Array.isArray(block.nodes)) return { nodes: undefined, errors, warnings };
  const nodes: WorkflowNode[] = [];
  block.nodes.forEach((rawBody, i) => {
    const bodyLabel = `${groupName} → loop_group node '${nodeLabelId(rawBody, i)}'`;
    const result = parseNode(rawBody, i, bodyLabel);
    errors.push(...result.errors);
    warnings.push(...result.warnings);
    if (!result.node) return;
    if ('include' in result.node || 'workflow' in result.node) {
      const kind = 'include' in result.node ? "'include'" : "'workflow' (sub-run)";
      errors.push(`${bodyLabel}: ${kind} nodes are not supported inside a loop_group body`);
      return;
    }
    nodes.push(result.node);
  });
  return { nodes: errors.length === 0 ? nodes : undefined, errors, warnings };
}
