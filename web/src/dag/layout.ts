import { Graph, layout } from '@dagrejs/dagre';
import type { WorkflowNode } from '../types.js';

/**
 * Where each node of a workflow goes on the page: dagre's layered layout, left to right in
 * dependency order, with each edge as a polyline. Pure: the same definition, the same picture.
 */

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 44;

export interface PlacedNode {
  id: string;
  x: number;
  y: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  points: { x: number; y: number }[];
}

export interface DagLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

/** The node's dependencies that are nodes of the workflow (a dangling name draws no edge). */
export function dependenciesOf(node: WorkflowNode, ids: ReadonlySet<string>): string[] {
  const deps = Array.isArray(node.depends_on) ? node.depends_on.filter((d): d is string => typeof d === 'string') : [];
  return deps.filter((d) => ids.has(d) && d !== node.id);
}

export function layoutDag(nodes: readonly WorkflowNode[]): DagLayout {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 56, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((n) => n.id));
  for (const node of nodes) graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const node of nodes) for (const dep of dependenciesOf(node, ids)) graph.setEdge(dep, node.id);
  layout(graph);
  const placed = nodes.map((node) => {
    const at = graph.node(node.id);
    return { id: node.id, x: at.x - NODE_WIDTH / 2, y: at.y - NODE_HEIGHT / 2 };
  });
  const edges = graph.edges().map((e) => ({ from: e.v, to: e.w, points: graph.edge(e).points ?? [] }));
  const label = graph.graph();
  return { nodes: placed, edges, width: Math.ceil(label.width ?? 0), height: Math.ceil(label.height ?? 0) };
}
