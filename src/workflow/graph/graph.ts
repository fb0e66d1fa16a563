/**
 * Pure functions over a workflow's dependency graph: the load-time checks (duplicate ids,
 * unknown dependencies, cycles) and the orderings the scheduler reuses. A graph node is only
 * `{ id, depends_on }`, so these work on raw YAML, parsed definitions and run plans alike.
 */

import { didYouMean } from '../loading/did-you-mean.js';

export interface GraphNode {
  id: string;
  depends_on?: readonly string[] | undefined;
}

/** Ids declared more than once, each reported once, in first-seen order. */
export function findDuplicateIds(nodes: readonly GraphNode[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { id } of nodes) {
    if (seen.has(id)) duplicates.add(id);
    seen.add(id);
  }
  return [...duplicates];
}

/** Every `depends_on` entry that names no node of the graph. */
export function findUnknownDependencies(nodes: readonly GraphNode[]): { nodeId: string; dependency: string }[] {
  const ids = new Set(nodes.map((n) => n.id));
  const unknown: { nodeId: string; dependency: string }[] = [];
  for (const node of nodes) {
    for (const dependency of node.depends_on ?? []) {
      if (!ids.has(dependency)) unknown.push({ nodeId: node.id, dependency });
    }
  }
  return unknown;
}

/**
 * The cycles of the graph, each as the ids of the nodes on it (in declaration order). Only
 * nodes that are really on a cycle are named — not the nodes merely downstream of one — so
 * the message points at the edges to change. Tarjan's strongly connected components.
 */
export function findCycles(nodes: readonly GraphNode[]): string[][] {
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const deps = new Map(nodes.map((n) => [n.id, (n.depends_on ?? []).filter((d) => order.has(d))]));
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;

  // Iterative DFS: a generated workflow may be deep enough to overflow a recursive one.
  for (const root of nodes) {
    if (index.has(root.id)) continue;
    const work: { id: string; next: number }[] = [{ id: root.id, next: 0 }];
    index.set(root.id, counter);
    lowLink.set(root.id, counter++);
    stack.push(root.id);
    onStack.add(root.id);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = deps.get(frame.id)!;
      if (frame.next < edges.length) {
        const dep = edges[frame.next++]!;
        if (!index.has(dep)) {
          index.set(dep, counter);
          lowLink.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          work.push({ id: dep, next: 0 });
        } else if (onStack.has(dep)) {
          lowLink.set(frame.id, Math.min(lowLink.get(frame.id)!, index.get(dep)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.id, Math.min(lowLink.get(parent.id)!, lowLink.get(frame.id)!));
      if (lowLink.get(frame.id) !== index.get(frame.id)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.id);
      const selfLoop = component.length === 1 && edges.includes(frame.id);
      if (component.length > 1 || selfLoop) {
        cycles.push(component.sort((a, b) => order.get(a)! - order.get(b)!));
      }
    }
  }
  return cycles.sort((a, b) => order.get(a[0]!)! - order.get(b[0]!)!);
}

/** Every structural problem of the graph, as the messages users see. */
export function describeGraphProblems(nodes: readonly GraphNode[]): string[] {
  const problems: string[] = [];
  for (const id of findDuplicateIds(nodes)) problems.push(`Duplicate node id: '${id}'`);
  const unknown = findUnknownDependencies(nodes);
  // One suggestion per distinct unknown name: in a 10,000-node graph each costs a pass over the ids.
  const hints = new Map<string, string>();
  const ids = unknown.length > 0 ? nodes.map((n) => n.id) : [];
  for (const { nodeId, dependency } of unknown) {
    let hint = hints.get(dependency);
    if (hint === undefined) hints.set(dependency, (hint = didYouMean(dependency, ids)));
    problems.push(`Node '${nodeId}' depends_on unknown node '${dependency}'${hint}`);
  }
  for (const cycle of findCycles(nodes)) problems.push(`Cycle detected among nodes: ${cycle.join(', ')}`);
  return problems;
}

/**
 * Node ids with dependencies before dependants; among nodes ready together, declaration order
 * is kept. Throws if the graph has a cycle (load-time validation rejects those first).
 */
export function topologicalOrder(nodes: readonly GraphNode[]): string[] {
  const position = new Map(nodes.map((n, i) => [n.id, i]));
  const remaining = new Map(nodes.map((n) => [n.id, new Set((n.depends_on ?? []).filter((d) => position.has(d)))]));
  const dependants = dependantsOf(nodes);
  // Ready nodes by declaration position: a min-heap, so a 1000-node fan-out orders in
  // O(n log n) instead of re-sorting the ready list after every pick.
  const ready = new PositionHeap();
  for (const node of nodes) if (remaining.get(node.id)!.size === 0) ready.push(position.get(node.id)!);
  const order: string[] = [];
  while (ready.size > 0) {
    const id = nodes[ready.pop()]!.id;
    order.push(id);
    for (const dependant of dependants.get(id) ?? []) {
      const waiting = remaining.get(dependant)!;
      waiting.delete(id);
      if (waiting.size === 0) ready.push(position.get(dependant)!);
    }
  }
  if (order.length !== new Set(position.keys()).size) {
    throw new Error(`graph has a cycle among: ${findCycles(nodes).flat().join(', ')}`);
  }
  return order;
}

/** A binary min-heap of integers. */
class PositionHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    items.push(value);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (items[parent]! <= items[i]!) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): number {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && items[left]! < items[smallest]!) smallest = left;
        if (right < items.length && items[right]! < items[smallest]!) smallest = right;
        if (smallest === i) break;
        [items[smallest], items[i]] = [items[i]!, items[smallest]!];
        i = smallest;
      }
    }
    return top;
  }
}

/** Maps each node id to the ids of the nodes that depend on it directly. */
export function dependantsOf(nodes: readonly GraphNode[]): Map<string, string[]> {
  const dependants = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  for (const node of nodes) {
    for (const dep of new Set(node.depends_on ?? [])) dependants.get(dep)?.push(node.id);
  }
  return dependants;
}

/** The ids a node depends on directly or transitively (its upstream), excluding itself unless on a cycle. */
export function ancestorsOf(nodes: readonly GraphNode[], id: string): Set<string> {
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  const seen = new Set<string>();
  const stack = [...(deps.get(id) ?? [])];
  while (stack.length > 0) {
    const dep = stack.pop()!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    stack.push(...(deps.get(dep) ?? []));
  }
  return seen;
}

/** Nodes nothing depends on (the graph's sinks), in declaration order. */
export function sinksOf(nodes: readonly GraphNode[]): string[] {
  const dependants = dependantsOf(nodes);
  return nodes.filter((n) => (dependants.get(n.id) ?? []).length === 0).map((n) => n.id);
}
