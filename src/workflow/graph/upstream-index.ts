import type { GraphNode } from './graph.js';

/**
 * Answers "is node X upstream of node Y" (X a direct or transitive dependency of Y) for a whole
 * graph at once. Asking `ancestorsOf` node by node would cost O(N) per node, O(N²) per workflow
 * (7 s for a 10,000-node fan-out, 11 s for a chain). Here the questions are known up front (the
 * references the nodes actually make), so they are answered together:
 *
 * - X a direct dependency of Y: yes, from the `depends_on` list.
 * - X at or after Y in topological order: no.
 * - Otherwise ("deep" questions): reachability bitsets over the distinct deep targets only,
 *   built in one topological pass, `wordsPerPass × 32` targets per pass so memory stays
 *   O(N × wordsPerPass) however many targets there are. Time O((N + E) × T / 32) for T deep
 *   targets; a 10,000-node lattice whose every node reads a node far above it validates in
 *   tens of milliseconds.
 *
 * A graph with a cycle, a duplicate id or an unknown dependency has no topological order (the
 * workflow is invalid anyway, but its references are still checked so every problem shows in one
 * pass): there each reader's upstream is found by one search, remembered per reader.
 */

export interface UpstreamIndex {
  /** Whether `id` is upstream of `reader` (same answer as `ancestorsOf(graph, reader).has(id)`). */
  has(reader: string, id: string): boolean;
  /** The upstream of `reader`, in the order `ancestorsOf` gives. */
  list(reader: string): ReadonlySet<string>;
}

/** One pass covers 64 words × 32 = 2,048 targets: 256 bytes per node. */
const wordsPerPass = 64;

/** Builds the index for `graph`, answering `questions` ([reader, id] pairs) up front. */
export function indexUpstream(graph: readonly GraphNode[], questions: Iterable<readonly [string, string]>): UpstreamIndex {
  const deps = new Map(graph.map((n) => [n.id, n.depends_on ?? []]));
  const lists = new Map<string, ReadonlySet<string>>();
  const list = (reader: string): ReadonlySet<string> => {
    let found = lists.get(reader);
    if (!found) lists.set(reader, (found = searchUpstream(deps, reader)));
    return found;
  };
  const byRank = deps.size === graph.length ? topologicalOrder(deps) : undefined;
  if (!byRank) return { has: (reader, id) => list(reader).has(id), list };

  // Questions and answers are keyed by the pair's ranks, `reader × n + id`: numbers, not strings.
  const n = byRank.length;
  const rank = new Map(byRank.map((id, i) => [id, i]));
  const depRanks = byRank.map((id) => deps.get(id)!.map((d) => rank.get(d)!));
  const asked = new Set<number>();
  const yes = new Set<number>();
  const deep: [number, number][] = [];
  const isDirect = directTest(depRanks);
  for (const [reader, id] of questions) {
    const r = rank.get(reader);
    const x = rank.get(id);
    if (r === undefined || x === undefined || x >= r || asked.has(r * n + x)) continue;
    asked.add(r * n + x);
    if (isDirect(r, x)) yes.add(r * n + x);
    else deep.push([r, x]);
  }
  if (deep.length > 0) answerDeep(depRanks, deep, (r, x) => yes.add(r * n + x));
  return {
    has(reader, id) {
      const r = rank.get(reader);
      const x = rank.get(id);
      if (r === undefined || x === undefined || x >= r) return false;
      if (asked.has(r * n + x)) return yes.has(r * n + x);
      return list(reader).has(id); // not asked up front: found the slow way, same answer
    },
    list,
  };
}

/** Whether x is a direct dependency of r: a scan of short lists, a Set for long ones (a join). */
function directTest(depRanks: readonly (readonly number[])[]): (r: number, x: number) => boolean {
  const sets = new Map<number, Set<number>>();
  return (r, x) => {
    const on = depRanks[r]!;
    if (on.length <= 16) return on.includes(x);
    let set = sets.get(r);
    if (!set) sets.set(r, (set = new Set(on)));
    return set.has(x);
  };
}

/**
 * Answers deep questions ([reader rank, target rank]) with one topological pass per 2,048
 * distinct targets: each node's row holds a bit per target upstream of it, ORed from its
 * dependencies' rows. `live` skips the rows still empty, so targets near the bottom of a
 * large graph cost little.
 */
function answerDeep(depRanks: readonly (readonly number[])[], deep: readonly [number, number][], yes: (r: number, x: number) => void): void {
  const n = depRanks.length;
  const targets = [...new Set(deep.map(([, x]) => x))].sort((a, b) => a - b);
  const bitOf = new Int32Array(n).fill(-1);
  const perPass = wordsPerPass * 32;
  for (let start = 0; start < targets.length; start += perPass) {
    const chunk = targets.slice(start, start + perPass);
    chunk.forEach((x, bit) => (bitOf[x] = bit));
    const words = Math.ceil(chunk.length / 32);
    const rows = new Uint32Array(n * words);
    const live = new Uint8Array(n);
    for (let v = chunk[0]! + 1; v < n; v++) {
      const row = v * words;
      for (const d of depRanks[v]!) {
        const bit = bitOf[d]!;
        if (bit >= 0) {
          rows[row + (bit >>> 5)]! |= 1 << (bit & 31);
          live[v] = 1;
        }
        if (live[d] === 0) continue;
        live[v] = 1;
        const from = d * words;
        for (let w = 0; w < words; w++) rows[row + w]! |= rows[from + w]!;
      }
    }
    for (const [r, x] of deep) {
      const bit = bitOf[x]!;
      if (bit >= 0 && (rows[r * words + (bit >>> 5)]! & (1 << (bit & 31))) !== 0) yes(r, x);
    }
    chunk.forEach((x) => (bitOf[x] = -1));
  }
}

/** The ids with dependencies first (Kahn); undefined on a cycle or an unknown dependency. */
function topologicalOrder(deps: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const waiting = new Map<string, number>();
  const dependants = new Map<string, string[]>();
  for (const [id, on] of deps) {
    const unique = new Set(on);
    waiting.set(id, unique.size);
    for (const dep of unique) {
      if (!deps.has(dep)) return undefined;
      let list = dependants.get(dep);
      if (!list) dependants.set(dep, (list = []));
      list.push(id);
    }
  }
  const ready = [...deps.keys()].filter((id) => waiting.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.pop()!;
    order.push(id);
    for (const next of dependants.get(id) ?? []) {
      const left = waiting.get(next)! - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return order.length === deps.size ? order : undefined;
}

/** Depth-first over `depends_on`, in the order `ancestorsOf` visits. */
function searchUpstream(deps: ReadonlyMap<string, readonly string[]>, id: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(deps.get(id) ?? [])];
  while (stack.length > 0) {
    const dep = stack.pop()!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    for (const next of deps.get(dep) ?? []) stack.push(next);
  }
  return seen;
}
