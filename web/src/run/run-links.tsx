import type { Run, RunEvent } from '../types.js';

/**
 * The runs this run is linked to: its parent (the run whose `workflow:` node started it, and
 * that node), and its child runs, found in its records (`child_run_id` of a node's record, the
 * child a gate waits on). A fan-out's child runs are linked from its grid.
 */

export function childRunsOf(run: Run, events: readonly RunEvent[]): { runId: string; node: string }[] {
  const found = new Map<string, string>();
  const add = (id: unknown, node: string | null) => {
    if (typeof id === 'string' && id !== '' && id !== run.id && !found.has(id)) found.set(id, node ?? '');
  };
  for (const event of events) {
    add(event.data.child_run_id, event.step_name);
    const diagnostics = (event.data.execution as { diagnostics?: { childRunId?: unknown } } | undefined)?.diagnostics;
    add(diagnostics?.childRunId, event.step_name);
  }
  add(run.metadata.approval?.childRunId, run.metadata.approval?.nodeId ?? null);
  return [...found].map(([runId, node]) => ({ runId, node }));
}

export function RunLinks(props: { run: Run; events: readonly RunEvent[] }) {
  const { run } = props;
  const children = childRunsOf(run, props.events);
  const parentNode = typeof run.metadata.parent_node_id === 'string' ? run.metadata.parent_node_id : undefined;
  if (!run.parent_run_id && children.length === 0) return null;
  return (
    <nav class="run-links" aria-label="Related runs">
      {run.parent_run_id ? (
        <p>
          Child run of <a href={`/runs/${run.parent_run_id}`} class="parent-link">{run.parent_run_id.slice(0, 12)}</a>
          {parentNode ? <> (its node <code>{parentNode}</code>)</> : null}
        </p>
      ) : null}
      {children.length ? (
        <p>
          Child runs:{' '}
          {children.map((child, i) => (
            <span key={child.runId}>
              {i ? ', ' : ''}
              <a href={`/runs/${child.runId}`} class="child-link">{child.runId.slice(0, 12)}</a>
              {child.node ? <span class="muted"> ({child.node})</span> : null}
            </span>
          ))}
        </p>
      ) : null}
    </nav>
  );
}
