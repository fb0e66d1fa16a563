import { describe, expect, it } from 'vitest';
import {
  ancestorsOf,
  dependantsOf,
  describeGraphProblems,
  findCycles,
  findDuplicateIds,
  findUnknownDependencies,
  sinksOf,
  topologicalOrder,
} from '../../src/workflow/graph/graph.js';

const node = (id: string, ...depends_on: string[]) => ({ id, depends_on });

describe('graph checks', () => {
  it('reports each duplicated id once', () => {
    expect(findDuplicateIds([node('a'), node('b'), node('a'), node('a')])).toEqual(['a']);
  });

  it('reports every unknown dependency with the node that names it', () => {
    expect(findUnknownDependencies([node('a', 'x'), node('b', 'a', 'y')])).toEqual([
      { nodeId: 'a', dependency: 'x' },
      { nodeId: 'b', dependency: 'y' },
    ]);
  });

  it('names only the nodes on a cycle, not the nodes downstream of it', () => {
    const nodes = [node('a', 'c'), node('b', 'a'), node('c', 'b'), node('after', 'c'), node('free')];
    expect(findCycles(nodes)).toEqual([['a', 'b', 'c']]);
  });

  it('finds a node that depends on itself and several separate cycles', () => {
    const nodes = [node('self', 'self'), node('x', 'y'), node('y', 'x'), node('ok')];
    expect(findCycles(nodes)).toEqual([['self'], ['x', 'y']]);
  });

  it('handles a chain long enough to overflow a recursive search', () => {
    const nodes = Array.from({ length: 20_000 }, (_, i) => (i === 0 ? node('n0', 'n19999') : node(`n${i}`, `n${i - 1}`)));
    expect(findCycles(nodes)[0]).toHaveLength(20_000);
  });

  it('describes every problem with the texts users match on', () => {
    const problems = describeGraphProblems([node('a'), node('a'), node('b', 'zz'), node('c', 'd'), node('d', 'c')]);
    expect(problems).toEqual([
      "Duplicate node id: 'a'",
      "Node 'b' depends_on unknown node 'zz'",
      'Cycle detected among nodes: c, d',
    ]);
  });
});

describe('orderings for the scheduler', () => {
  it('puts dependencies first and keeps declaration order among ready nodes', () => {
    const nodes = [node('report', 'lint', 'test'), node('test'), node('lint'), node('deploy', 'report')];
    expect(topologicalOrder(nodes)).toEqual(['test', 'lint', 'report', 'deploy']);
  });

  it('refuses to order a cyclic graph', () => {
    expect(() => topologicalOrder([node('a', 'b'), node('b', 'a')])).toThrow(/cycle among: a, b/);
  });

  it('maps each node to its direct dependants', () => {
    const dependants = dependantsOf([node('a'), node('b', 'a'), node('c', 'a', 'b')]);
    expect(Object.fromEntries(dependants)).toEqual({ a: ['b', 'c'], b: ['c'], c: [] });
  });

  it('gives the transitive upstream of a node and the sinks of a graph', () => {
    const nodes = [node('a'), node('b', 'a'), node('c', 'b'), node('d')];
    expect([...ancestorsOf(nodes, 'c')].sort()).toEqual(['a', 'b']);
    expect(sinksOf(nodes)).toEqual(['c', 'd']);
  });
});
