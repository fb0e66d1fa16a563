import { parseCondition, type ConditionRef } from '../when/condition-parse.js';
import { didYouMean } from '../loading/did-you-mean.js';
import { describeGraphProblems, type GraphNode } from '../graph/graph.js';
import type { DefinitionNode, WorkflowNode } from '../schema/node-schema.js';
import { listNodeTexts, type NodeText } from '../schema/node-texts.js';
import { scanReferences, stripMarkdownCode } from '../substitution/references.js';
import { indexUpstream, type UpstreamIndex } from '../graph/upstream-index.js';

/**
 * Checks the references of every node against the graph: `$x.output` must name a node upstream
 * of the reader, `$INPUTS.name` a declared input, `$LOOP_PREV.x.output` a node of the enclosing
 * loop_group body, and every `when:` must parse. loop_group bodies are checked as scoped
 * sub-graphs that may also read the group's own upstream.
 *
 * Cost is linear in the workflow's size (plus the deep references, see `upstream-index.ts`):
 * every "is X upstream of Y" question is answered by one index built for the whole graph.
 */

/** The nodes of enclosing graphs a scope may read; a Map, or a lazy view of one. */
export type OuterNodes = Pick<ReadonlyMap<string, DefinitionNode | undefined>, 'has' | 'get' | 'keys'>;

export interface ReferenceScope {
  /** The graph the nodes belong to (ids and `depends_on`). */
  graph: readonly GraphNode[];
  /** Nodes of enclosing graphs readable from here (the loop_group's upstream), by id. */
  outer: OuterNodes;
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
  const texts = nodes.map(listNodeTexts);
  const index = indexUpstream(scope.graph, listUpstreamQuestions(nodes, texts));
  const suggestions = new Map<string, string>();
  const suggest = (nodeId: string): string => {
    let text = suggestions.get(nodeId);
    if (text === undefined) suggestions.set(nodeId, (text = didYouMean(nodeId, [...ids, ...scope.outer.keys()])));
    return text;
  };

  nodes.forEach((node, i) => {
    const name = scope.label(node.id);
    const isUpstream = (id: string): boolean => index.has(node.id, id);
    const checkNodeRef = (nodeId: string, written: string): void => {
      if (scope.outer.has(nodeId) && !ids.has(nodeId)) return;
      if (!ids.has(nodeId)) {
        errors.push(`${name} references unknown node '${written}'${suggest(nodeId)}`);
      } else if (!isUpstream(nodeId)) {
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

    for (const { field, text, prose } of texts[i]!) {
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
      } else if (ids.has(source) && !isUpstream(source)) {
        errors.push(`${name}: 'context.resume' names '${source}', which is not upstream of '${node.id}'`);
      } else if (!holdsSession(byId.get(source) ?? scope.outer.get(source))) {
        errors.push(`${name}: 'context.resume' names '${source}', which is not an AI node (a prompt, command or AI loop): it has no session to continue`);
      }
    }
    if ('workflow' in node && node.fan_out && scanReferences(node.fan_out.items).every((r) => r.kind !== 'output')) {
      if (!isJsonArray(node.fan_out.items)) {
        errors.push(`${name}: 'fan_out.items' must be a $node.output reference or a JSON array`);
      }
    }
    if ('loop_group' in node) errors.push(...checkLoopGroupBody(node, scope, index, byId));
  });
  return errors;
}

/**
 * Every [reader, id] "is id upstream of reader" question the nodes may ask: each `$id.` in any
 * of their texts (a superset of their output and `when:` references), `context.resume`, and the
 * same for a loop_group's body, asked of the group (its body may read the group's upstream).
 */
function* listUpstreamQuestions(nodes: readonly DefinitionNode[], texts: readonly NodeText[][]): Generator<[string, string]> {
  for (let i = 0; i < nodes.length; i++) {
    for (const id of readableIds(nodes[i]!, texts[i]!)) yield [nodes[i]!.id, id];
  }
}

const idBeforeDot = /\$([A-Za-z_][A-Za-z0-9_-]*)\./g;

function* readableIds(node: DefinitionNode, texts: readonly NodeText[] = listNodeTexts(node)): Generator<string> {
  for (const { text } of texts) {
    for (const m of text.matchAll(idBeforeDot)) yield m[1]!;
  }
  if ('context' in node && typeof node.context === 'object') yield node.context.resume;
  if ('loop_group' in node) for (const body of node.loop_group.nodes) yield* readableIds(body);
}

function checkLoopGroupBody(
  group: Extract<WorkflowNode, { loop_group: unknown }>,
  scope: ReferenceScope,
  index: UpstreamIndex,
  siblings: ReadonlyMap<string, DefinitionNode>,
): string[] {
  const groupName = scope.label(group.id);
  const body = group.loop_group.nodes;
  const errors = describeGraphProblems(body).map((p) => `${groupName} loop_group body: ${p}`);
  const outer = groupOuter(group.id, scope.outer, index, siblings);
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

/**
 * What a loop_group body may read from outside: the enclosing scope's nodes plus the group's
 * upstream, without copying that upstream (it can be most of a large graph). Keys come in the
 * order a copied Map would list them, so "did you mean" picks the same name.
 */
function groupOuter(
  groupId: string,
  enclosing: OuterNodes,
  index: UpstreamIndex,
  siblings: ReadonlyMap<string, DefinitionNode>,
): OuterNodes {
  const isUpstream = (id: string): boolean => index.has(groupId, id);
  let keys: string[] | undefined;
  return {
    has: (id) => enclosing.has(id) || isUpstream(id),
    get: (id) => (isUpstream(id) ? (siblings.get(id) ?? enclosing.get(id)) : enclosing.get(id)),
    keys: () => (keys ??= [...enclosing.keys(), ...[...index.list(groupId)].filter((id) => !enclosing.has(id))]).values(),
  };
}

function writtenRef(ref: Extract<ConditionRef, { kind: 'output' }>): string {
  return ref.field === undefined ? `$${ref.nodeId}.output` : `$${ref.nodeId}.output.${ref.field}`;
}

/** Nodes whose whole output is model prose: AI nodes without `output_format`, and loops. */
/** A node whose attempts leave a provider session: an AI node, or a loop with an AI body. */
function holdsSession(node: DefinitionNode | undefined): boolean {
  if (node === undefined) return true; // an unknown node is reported on its own
  return 'prompt' in node || 'command' in node || ('loop' in node && node.loop.bash === undefined);
}

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
