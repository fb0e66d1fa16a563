import { useMemo } from 'preact/hooks';
import type { NodeView } from '../run/node-states.js';
import type { WorkflowNode } from '../types.js';
import { layoutDag, NODE_HEIGHT, NODE_WIDTH } from './layout.js';

/** Words for a node's state, as shown under its name. */
export const stateLabel: Record<NodeView['state'], string> = {
  waiting: 'waiting',
  queued: 'queued',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped',
  cached: 'cached',
  suspended: 'suspended',
  interrupted: 'interrupted',
};

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The run's graph: each node coloured by its state; a click selects it. */
export function DagView(props: {
  nodes: readonly WorkflowNode[];
  states: ReadonlyMap<string, NodeView>;
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const placed = useMemo(() => layoutDag(props.nodes), [props.nodes]);
  if (props.nodes.length === 0) return <p class="muted">The run's workflow has no nodes to draw.</p>;
  return (
    <div class="dag-scroll">
      <svg
        class="dag"
        width="100%"
        viewBox={`0 0 ${placed.width} ${placed.height}`}
        // Shrinks to fit its column, down to 60%; a larger graph scrolls instead.
        style={{ maxWidth: `${placed.width}px`, minWidth: `${Math.round(placed.width * 0.6)}px` }}
        role="group"
        aria-label="Workflow graph"
      >
        {placed.edges.map((edge) => (
          <polyline key={`${edge.from}->${edge.to}`} class="dag-edge" points={edge.points.map((p) => `${p.x},${p.y}`).join(' ')} />
        ))}
        {placed.nodes.map((node) => {
          const view = props.states.get(node.id);
          const state = view?.state ?? 'waiting';
          const attempts = view?.attempts.length ?? 0;
          return (
            <g
              key={node.id}
              class={`dag-node state-${state}${props.selected === node.id ? ' selected' : ''}`}
              data-node={node.id}
              data-state={state}
              transform={`translate(${node.x},${node.y})`}
              tabIndex={0}
              role="button"
              aria-label={`${node.id}: ${stateLabel[state]}`}
              onClick={() => props.onSelect(node.id)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') props.onSelect(node.id);
              }}
            >
              <title>{view?.note ? `${node.id}: ${stateLabel[state]} — ${view.note}` : `${node.id}: ${stateLabel[state]}`}</title>
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
              <text x={10} y={18} class="dag-name">
                {clip(node.id, 22)}
              </text>
              <text x={10} y={34} class="dag-state">
                {stateLabel[state]}
                {state === 'queued' && view?.queue ? ` #${view.queue.position}` : ''}
                {attempts > 1 ? ` · ${attempts} attempts` : ''}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
