import { useComputed } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { DagView } from '../dag/dag-view.js';
import { ago } from '../format.js';
import { useKeys } from '../keyboard.js';
import { hrefWith, navigate } from '../router.js';
import { ActionBar } from '../run/action-bar.js';
import { foldNodeStates } from '../run/node-states.js';
import { NodePanel } from '../run/node-panel.js';
import { loadRunData } from '../run/run-data.js';
import { StatusBadge } from '../status-badge.js';

/**
 * `/runs/<id>`: the run's header, its operations, its graph coloured live, and the node panel of
 * the node in the address (`?node=`).
 */
export function RunPage(props: { runId: string; selected: string | undefined }) {
  const data = useMemo(() => loadRunData(props.runId), [props.runId]);
  useEffect(() => () => data.dispose(), [data]);
  const states = useComputed(() => foldNodeStates((data.nodes.value ?? []).map((n) => n.id), data.events.value));
  const run = data.run.value;
  const ids = (data.nodes.value ?? []).map((n) => n.id);
  const step = (by: number) => {
    if (ids.length === 0) return;
    const at = props.selected ? ids.indexOf(props.selected) : -1;
    const next = ids[Math.min(ids.length - 1, Math.max(0, at + by))]!;
    navigate(hrefWith({ node: next }), { replace: true });
  };
  useKeys({ j: () => step(1), k: () => step(-1), Escape: () => navigate(hrefWith({ node: undefined }), { replace: true }) });

  if (!run) {
    return (
      <main class="page">
        <p class={data.error.value ? 'error-text' : 'muted'}>{data.error.value ?? 'Loading the run…'}</p>
        <a href="/">Back to the runs</a>
      </main>
    );
  }
  const selectedView = props.selected ? states.value.get(props.selected) : undefined;
  const select = (id: string) => navigate(hrefWith({ node: props.selected === id ? undefined : id }), { replace: true });
  const cost = run.metadata.total_cost_usd;

  return (
    <main class="page run-page">
      <header class="run-head">
        <h2>
          {run.workflow_name} <StatusBadge status={run.status} />
        </h2>
        <p class="muted">
          <code>{run.id}</code> · started {ago(run.started_at ?? run.created_at)}
          {run.completed_at ? ` · ended ${ago(run.completed_at)}` : ''}
          {typeof cost === 'number' ? ` · $${cost.toFixed(4)}` : ''}
          {run.parent_run_id ? (
            <>
              {' '}
              · child of <a href={`/runs/${run.parent_run_id}`}>{run.parent_run_id.slice(0, 12)}</a>
            </>
          ) : null}
        </p>
        {run.user_message ? <p class="message">{run.user_message}</p> : null}
        {run.error ? <pre class="error-text run-error">{run.error}</pre> : null}
        {data.error.value ? <p class="error-text">{data.error.value}</p> : null}
      </header>
      <ActionBar
        run={run}
        onDone={(action) => {
          if (action === 'delete') navigate('/');
          else data.refresh();
        }}
      />
      <div class="run-body">
        <section class="graph" aria-label="Graph">
          {data.nodes.value ? (
            <DagView nodes={data.nodes.value} states={states.value} selected={props.selected} onSelect={select} />
          ) : (
            <p class="muted">Loading the graph…</p>
          )}
        </section>
        {selectedView ? (
          <NodePanel runId={run.id} node={selectedView} />
        ) : (
          <aside class="node-panel muted">Select a node to see its attempts, output and logs.</aside>
        )}
      </div>
    </main>
  );
}
