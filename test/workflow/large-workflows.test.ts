import { describe, expect, it } from 'vitest';
import type { DefinitionNode } from '../../src/workflow/schema/node-schema.js';
import { parseDraft, type ParsedDraft } from '../../src/workflow/loading/parse-draft.js';
import { completeDraft, validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

/**
 * Validation at 10,000 nodes: right answers on the shapes that used to cost O(N²) (every node's
 * upstream was searched node by node, 7–11 s at this size), and a count of the work that fails
 * if that comes back, whatever the machine's speed.
 */

const wf = (nodes: unknown[]) => ({ name: 'big', description: 'a large workflow', nodes });
const WIDTH = 100;
const DEPTH = 100;
const id = (row: number, column: number) => `n${row}_${((column % WIDTH) + WIDTH) % WIDTH}`;

/**
 * A diamond lattice, 100 × 100: node (r, c) depends on (r-1, c) and (r-1, c+1), so row 0's
 * columns c … c+r are upstream of it. Each node reads two rows up (a deep reference) and, in its
 * `when:`, the node of row 0 thirty-seven columns along, which is upstream only from row 37 on.
 */
function lattice(): unknown[] {
  const nodes: unknown[] = [];
  for (let r = 0; r < DEPTH; r++) {
    for (let c = 0; c < WIDTH; c++) {
      if (r === 0) {
        nodes.push({ id: id(0, c), bash: 'true' });
        continue;
      }
      const node: Record<string, unknown> = { id: id(r, c), depends_on: [id(r - 1, c), id(r - 1, c + 1)], bash: 'true' };
      if (r >= 2) node.bash = `echo $${id(r - 2, c)}.output`;
      node.when = `$${id(0, c + 37)}.output != 'stop'`;
      nodes.push(node);
    }
  }
  return nodes;
}

const notUpstream = (r: number, c: number) =>
  `Node '${id(r, c)}' references '$${id(0, c + 37)}.output', but '${id(0, c + 37)}' is not upstream of '${id(r, c)}' — add it to depends_on (directly or through another node)`;

describe('validating 10,000-node workflows', () => {
  it('finds exactly the references of a diamond lattice that do not point upstream', () => {
    const result = validateWorkflowDefinition(wf(lattice()));
    const expected = [];
    for (let r = 1; r < 37; r++) for (let c = 0; c < WIDTH; c++) expected.push(notUpstream(r, c));
    expect(result.valid ? [] : result.errors).toEqual(expected);
  });

  it('accepts a chain whose every node reads the first, and a fan-in whose join reads every node', () => {
    const chain = Array.from({ length: 10_000 }, (_, i) =>
      i === 0 ? { id: 'c0', bash: 'true' } : { id: `c${i}`, depends_on: [`c${i - 1}`], bash: `echo $c0.output $c${i - 1}.output` },
    );
    expect(validateWorkflowDefinition(wf(chain))).toMatchObject({ valid: true, warnings: [] });

    const wide = Array.from({ length: 10_000 }, (_, i) => ({ id: `w${i}`, bash: 'true' }));
    const join = { id: 'join', depends_on: wide.map((n) => n.id), bash: wide.map((n) => `$${n.id}.output`).join(' ') };
    const result = validateWorkflowDefinition(wf([...wide, join]));
    expect(result.valid && result.workflow.nodes).toHaveLength(10_001);
  });

  it('reads each node’s depends_on a constant number of times, however deep the references', () => {
    const parsed = parseDraft(wf(lattice()));
    let reads = 0;
    const counted = (node: DefinitionNode): DefinitionNode =>
      new Proxy(node, {
        get(target, key, receiver) {
          if (key === 'depends_on') reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const nodes = parsed.nodes.map(counted);
    const watched: ParsedDraft = { ...parsed, nodes, draft: { ...parsed.draft!, nodes } };

    const result = completeDraft(watched);
    expect(result.valid).toBe(false); // the same 3,600 errors as above: the work was done
    // Searching each node's upstream node by node read every depends_on once per node: 10⁸ reads.
    expect(reads).toBeLessThanOrEqual(10 * nodes.length);
  });
});
