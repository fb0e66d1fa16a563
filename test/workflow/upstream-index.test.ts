import { describe, expect, it } from 'vitest';
import { ancestorsOf, type GraphNode } from '../../src/workflow/graph/graph.js';
import { indexUpstream } from '../../src/workflow/graph/upstream-index.js';

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A DAG of `size` nodes, each on 1–2 random nodes among the 8 before it (so upstreams are
 * deep, with gaps), declared in shuffled order (so declaration order is not a topological one). */
function randomDag(size: number, next: () => number): GraphNode[] {
  const nodes: GraphNode[] = Array.from({ length: size }, (_, i) => {
    const count = i === 0 ? 0 : 1 + Math.floor(next() * 2);
    const deps = Array.from({ length: count }, () => `v${Math.max(0, i - 1 - Math.floor(next() * 8))}`);
    return { id: `v${i}`, depends_on: [...new Set(deps)] };
  });
  for (let i = nodes.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [nodes[i], nodes[j]] = [nodes[j]!, nodes[i]!];
  }
  return nodes;
}

/** Each node's upstream by a plain search per node: the definition the index must agree with. */
function upstreamByPlainSearch(nodes: readonly GraphNode[]): Map<string, Set<string>> {
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  return new Map(
    nodes.map((n) => {
      const seen = new Set<string>();
      const stack = [...(deps.get(n.id) ?? [])];
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (seen.has(id)) continue;
        seen.add(id);
        stack.push(...(deps.get(id) ?? []));
      }
      return [n.id, seen];
    }),
  );
}

describe('indexUpstream', () => {
  it('answers every question as a plain search does, over more deep targets than one pass holds', () => {
    const next = random(6);
    const nodes = randomDag(4000, next);
    // Per reader: ids anywhere (after it: no; before it: often yes) and ids shortly before it.
    const questions = nodes.flatMap((n) => {
      const at = Number(n.id.slice(1));
      const ids = [next() * 4000, next() * 4000, at - 1 - next() * 500, at - 1 - next() * 500];
      return ids.filter((i) => i >= 0).map((i) => [n.id, `v${Math.floor(i)}`] as [string, string]);
    });
    const truth = upstreamByPlainSearch(nodes);
    const direct = new Map(nodes.map((n) => [n.id, new Set(n.depends_on)]));
    const deepTargets = new Set(questions.filter(([r, x]) => truth.get(r)!.has(x) && !direct.get(r)!.has(x)).map(([, x]) => x));
    expect(deepTargets.size).toBeGreaterThan(2048); // one pass holds 2,048 targets

    const index = indexUpstream(nodes, questions);
    const wrong = questions.filter(([r, x]) => index.has(r, x) !== truth.get(r)!.has(x));
    expect(wrong).toEqual([]);
    const upstreamOnes = questions.filter(([r, x]) => truth.get(r)!.has(x)).length;
    expect(upstreamOnes).toBeGreaterThan(questions.length / 4); // both answers are well represented
    expect(upstreamOnes).toBeLessThan((questions.length * 3) / 4);
  });

  it('answers questions it was not asked up front, and lists a node’s upstream as ancestorsOf does', () => {
    const nodes = randomDag(300, random(11));
    const index = indexUpstream(nodes, []);
    for (const reader of ['v299', 'v150', 'v7', 'v0']) {
      const expected = ancestorsOf(nodes, reader);
      expect([...index.list(reader)]).toEqual([...expected]);
      for (const other of nodes) expect(index.has(reader, other.id)).toBe(expected.has(other.id));
    }
  });

  it('answers as ancestorsOf on graphs with a cycle, a duplicate id or an unknown dependency', () => {
    const graphs: GraphNode[][] = [
      [{ id: 'a', depends_on: ['c'] }, { id: 'b', depends_on: ['a'] }, { id: 'c', depends_on: ['b'] }, { id: 'd', depends_on: ['c'] }],
      [{ id: 'self', depends_on: ['self'] }, { id: 'after', depends_on: ['self'] }],
      [{ id: 'a' }, { id: 'b', depends_on: ['a'] }, { id: 'a', depends_on: ['b'] }],
      [{ id: 'a', depends_on: ['ghost'] }, { id: 'b', depends_on: ['a'] }],
    ];
    for (const graph of graphs) {
      const ids = [...new Set(graph.flatMap((n) => [n.id, ...(n.depends_on ?? [])]))];
      const questions = ids.flatMap((r) => ids.map((x) => [r, x] as [string, string]));
      const index = indexUpstream(graph, questions);
      for (const [r, x] of questions) expect(index.has(r, x), `${x} upstream of ${r}`).toBe(ancestorsOf(graph, r).has(x));
    }
  });
});
