import { parseCondition, type ConditionRef } from './condition-parse.js';
import { didYouMean } from './did-you-mean.js';
import { ancestorsOf, describeGraphProblems, type GraphNode } from './graph.js';
import type { DefinitionNode, WorkflowNode } from './node-schema.js';
import { listNodeTexts } from './node-texts.js';
import { scanReferences, stripMarkdownCode } from './references.js';

/**
 * Checks the references of every node against the graph: `$x.output` must name a node upstream
 * of the reader, `$INPUTS.name` a declared input, `$LOOP_PREV.x.output` a node of the enclosing
 * loop_group body, and every `when:` must parse. loop_group bodies are checked as scoped
 * sub-graphs that may also read the group's own upstream.
 */

export interface ReferenceScope {
  /** The graph the nodes belong to (ids and `depends_on`). */
  graph: readonly GraphNode[];
  /** Nodes of enclosing graphs readable from here (the loop_group's upstream), by id. */
  outer: ReadonlyMap<string, DefinitionNode | undefined>;
  declaredInputs: readonly string[];
  /** Ids a `$LOOP_PREV.<id>.output` may name (the enclosing loop_group's body). */
  loopBody: ReadonlySet<string> | undefined;
  /** How messages name a node, e.g. `Node 'b'` or `Node 'g' → loop_group node 'b'`. */
  label: (id: string) => string;
}

export function checkReferences(nodes: readonly DefinitionNode[], scope: ReferenceScope): string[] {
  const errors: string[] = [];
  const byId = new Map<string, DefinitionNode>(nodes.map((n) => [n.id, n]));
  const ids = new Set(scope.graph.map((n) => n.id));

  for (const node of nodes) {
    const name = scope.label(node.id);
    const upstream = ancestorsOf(scope.graph, node.id);
    const checkNodeRef = (nodeId: string, written: string): void => {
      if (scope.outer.has(nodeId) && !ids.has(nodeId)) return;
      if (!ids.has(nodeId)) {
        errors.push(`${name} references unknown node '${written}'${didYouMean(nodeId, [...ids, ...scope.outer.keys()])}`);
      } else if (!upstream.has(nodeId)) {
        errors.push(
          `${name} references '${written}', but '${nodeId}' is not upstream of '${node.id}' — add it to depends_on (directly or through another node)`,
        );
      }
    };
    const checkInput = (input: string): void => {
      if (!scope.declaredInputs.includes(input)) {
        errors.push(`${name} references undeclared input '$INPUTS.${input}'${didYouMean(input, scope.declaredInputs)}`);
      }
    };

    for (const { field, text, prose } of listNodeTexts(node)) {
      if (field === 'when') continue;
      for (const ref of scanReferences(prose ? stripMarkdownCode(text) : text)) {
        if (ref.kind === 'output') checkNodeRef(ref.nodeId, `$${ref.nodeId}.output`);
        else if (ref.kind === 'input') checkInput(ref.name);
        else if (ref.kind === 'loop_prev' && !scope.loopBody?.has(ref.nodeId)) {
          errors.push(
            scope.loopBody
              ? `${name} references '$LOOP_PREV.${ref.nodeId}.output', but '${ref.nodeId}' is not a node of this loop_group body`
              : `${name} references '$LOOP_PREV.${ref.nodeId}.output', which exists only inside a loop_group body`,
          );
        }
      }
    }

    if (node.when !== undefined) {
      const parsed = parseCondition(node.when);
      if (!parsed.ok) {
        errors.push(`${name}: invalid 'when' expression "${node.when}": ${parsed.error}`);
      } else {
        for (const { ref, literal } of parsed.condition.anyOf.flat()) {
          if (ref.kind === 'input') {
            checkInput(ref.name);
            continue;
          }
          checkNodeRef(ref.nodeId, writtenRef(ref));
          const producer = byId.get(ref.nodeId) ?? scope.outer.get(ref.nodeId);
          const comparesToText = !(literal.kind === 'string' && literal.value === '');
          if (producer && ref.field === undefined && comparesToText && isFreeTextProducer(producer)) {
            errors.push(
              `${name}: 'when' compares the whole free-text output of '${ref.nodeId}' to a value, which a model will not match reliably; ` +
                `give '${ref.nodeId}' an output_format and compare a field ($${ref.nodeId}.output.<field>)`,
            );
          }
        }
      }
    }

    if ('context' in node && typeof node.context === 'object') {
      const source = node.context.resume;
      if (!ids.has(source) && !scope.outer.has(source)) {
        errors.push(`${name}: 'context.resume' names unknown node '${source}'`);
      } else if (ids.has(source) && !upstream.has(source)) {
        errors.push(`${name}: 'context.resume' names '${source}', which is not upstream of '${node.id}'`);
      }
    }
    if ('workflow' in node && node.fan_out && scanReferences(node.fan_out.items).every((r) => r.kind !== 'output')) {
      if (!isJsonArray(node.fan_out.items)) {
        errors.push(`${name}: 'fan_out.items' must be a $node.output reference or a JSON array`);
      }
    }
    if ('loop_group' in node) errors.push(...checkLoopGroupBody(node, scope, upstream, byId));
  }
  return errors;
}

function checkLoopGroupBody(
  group: Extract<WorkflowNode, { loop_group: unknown }>,
  scope: ReferenceScope,
  groupUpstream: ReadonlySet<string>,
  siblings: ReadonlyMap<string, DefinitionNode>,
): string[] {
  const groupName = scope.label(group.id);
  const body = group.loop_group.nodes;
  const errors = describeGraphProblems(body).map((p) => `${groupName} loop_group body: ${p}`);
  const outer = new Map(scope.outer);
  for (const id of groupUpstream) outer.set(id, siblings.get(id) ?? scope.outer.get(id));
  for (const node of body) {
    if (siblings.has(node.id) || scope.outer.has(node.id)) {
      errors.push(`${groupName} → loop_group node '${node.id}': id shadows a node of the enclosing workflow`);
    }
  }
  return errors.concat(
    checkReferences(body, {
      graph: body,
      outer,
      declaredInputs: scope.declaredInputs,
      loopBody: new Set(body.map((n) => n.id)),
      label: (id) => `${groupName} → loop_group node '${id}'`,
    }),
  );
}

function writtenRef(ref: Extract<ConditionRef, { kind: 'output' }>): string {
  return ref.field === undefined ? `$${ref.nodeId}.output` : `$${ref.nodeId}.output.${ref.field}`;
}

/** Nodes whose whole output is model prose: AI nodes without `output_format`, and loops. */
function isFreeTextProducer(node: DefinitionNode): boolean {
  if ('loop' in node || 'loop_group' in node) return true;
  return ('prompt' in node || 'command' in node) && node.output_format === undefined;
}

function isJsonArray(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}
