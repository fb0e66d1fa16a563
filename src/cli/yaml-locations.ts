import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';

/**
 * The lines (1-based) where the nodes of a workflow file start, by node id, in file order: every
 * mapping with an `id` inside any list, at any depth (so nodes of a loop body are found too).
 * Used to put a line number on validation messages, which name nodes but not lines.
 */
export function nodeLines(text: string): Map<string, number[]> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const lines = new Map<string, number[]>();
  const walk = (node: unknown, inList: boolean): void => {
    if (isSeq(node)) {
      for (const item of node.items) walk(item, true);
    } else if (isMap(node)) {
      const id = node.get('id', true);
      if (inList && isScalar(id) && typeof id.value === 'string' && node.range) {
        lines.set(id.value, [...(lines.get(id.value) ?? []), lineCounter.linePos(node.range[0]).line]);
      }
      for (const pair of node.items) walk(pair.value, false);
    }
  };
  walk(doc.contents, false);
  return lines;
}

/**
 * The line a validation message is about, when it names a node at its start: that node's line,
 * or for a duplicate id the line of its second definition (the one to rename or remove).
 */
export function lineOfMessage(message: string, lines: ReadonlyMap<string, readonly number[]>): number | undefined {
  const duplicate = /^Duplicate node id: '([^']+)'/.exec(message);
  if (duplicate) return lines.get(duplicate[1]!)?.[1];
  const node = /^Node '([^']+)'/.exec(message);
  return node ? lines.get(node[1]!)?.[0] : undefined;
}
