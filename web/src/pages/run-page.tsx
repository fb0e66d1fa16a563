import { useComputed } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { DagView } from '../dag/dag-view.js';
import { ago } from '../format.js';
import { useKeys } from '../keyboard.js';
import { hrefWith, location, navigate } from '../router.js';
import { ActionBar } from '../run/action-bar.js';
import { foldActivity } from '../run/activity.js';
import { ArtifactsView } from '../run/artifacts-view.js';
import { AttemptTimeline } from '../run/attempt-timeline.js';
import { DiffView } from '../run/diff-view.js';
import { FanOutGridView } from '../run/fan-out-grid.js';
import { foldNodeStates } from '../run/node-states.js';
import { NodePanel } from '../run/node-panel.js';
import { loadRunData } from '../run/run-data.js';
import { RunAttachments } from '../run/run-attachments.js';
import { AutoResumeNote } from '../run/auto-resume-note.js';
import { RunLinks } from '../run/run-links.js';
import { runTotals, spendText } from '../run/spend.js';
import { StatusBadge } from '../status-badge.js';

/** The views of a run below its header, by the address's `?tab=`. */
const tabs = [
  { id: 'graph', label: 'Graph' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'changes', label: 'Changes' },
  { id: 'artifacts', label: 'Artifacts' },
] as const;
type Tab = (typeof tabs)[number]['id'];

/**
 * `/runs/<id>`: the run's header (with its totals and related runs), its operations, and one of
 * its views (`?tab=`): the graph coloured live with the node panel of the node in the address
 * (`?node=`), the timeline of attempts, the changes in its worktree (`?attempt=` for one
 * attempt's), or its artifacts.
 */
export function RunPage(props: { runId: string; selected: string | undefined }) {
  const data = useMemo(() => loadRunData(props.runId), [props.runId]);
  useEffect(() => () => data.dispose(), [data]);
  const states = useComputed(() => foldNodeStates((data.nodes.value ?? []).map((n) => n.id), data.events.value));
  const query = location.value.query;
  const tab: Tab = tabs.find((t) => t.id === query.get('tab'))?.id ?? 'graph';
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
  const totals = runTotals(run);
  const ended = [...states.value.values()].reduce((n, v) => n + v.attempts.filter((a) => a.endedAt !== undefined).length, 0);
  const selectedNode = data.nodes.value?.find((n) => n.id === props.selected);

  return (
    <main class="page run-page">
      <header class="run-head">
        <h2>
          {run.workflow_name} <StatusBadge status={run.status} />
        </h2>
        <p class="muted">
          <code>{run.id}</code> · started {ago(run.started_at ?? run.created_at)}
          {run.completed_at ? ` · ended ${ago(run.completed_at)}` : ''}
        </p>
        {totals ? (
          <p class="run-totals">
            Totals: <span class="spend">{spendText(totals)}</span>
          </p>
        ) : null}
        <RunLinks run={run} events={data.events.value} />
        {run.user_message ? <p class="message">{run.user_message}</p> : null}
        <RunAttachments run={run} />
        {run.error ? <pre class="error-text run-error">{run.error}</pre> : null}
        <AutoResumeNote run={run} />
        {data.error.value ? <p class="error-text">{data.error.value}</p> : null}
      </header>
      <ActionBar
        run={run}
        onDone={(action) => {
          if (action === 'delete') navigate('/');
          else data.refresh();
        }}
      />
      <nav class="run-tabs" aria-label="Views of the run">
        {tabs.map((t) => (
          <a key={t.id} class={`tab${t.id === tab ? ' active' : ''}`} href={hrefWith({ tab: t.id === 'graph' ? undefined : t.id, attempt: undefined })}>
            {t.label}
          </a>
        ))}
      </nav>
      {tab === 'graph' ? (
        <div class="run-body">
          <section class="graph" aria-label="Graph">
            {data.nodes.value ? (
              <DagView nodes={data.nodes.value} states={states.value} selected={props.selected} onSelect={select} />
            ) : (
              <p class="muted">Loading the graph…</p>
            )}
          </section>
          {selectedView ? (
            <div class="node-side">
              <NodePanel
                runId={run.id}
                node={selectedView}
                activity={foldActivity(data.events.value, selectedView.id)}
                hasWorktree={run.codebase_id !== null}
              />
              {selectedNode && selectedNode.fan_out !== undefined ? (
                <FanOutGridView runId={run.id} nodeId={selectedView.id} runStatus={run.status} onRetried={data.refresh} />
              ) : null}
            </div>
          ) : (
            <aside class="node-panel muted">Select a node to see its attempts, output and logs.</aside>
          )}
        </div>
      ) : null}
      {tab === 'timeline' ? (
        <AttemptTimeline run={run} nodes={data.nodes.value ?? []} views={states.value} onSelect={(id) => navigate(hrefWith({ tab: undefined, node: id }), { replace: true })} />
      ) : null}
      {tab === 'changes' ? <DiffView runId={run.id} attempt={query.get('attempt') ?? undefined} version={ended} /> : null}
      {tab === 'artifacts' ? <ArtifactsView runId={run.id} version={ended} /> : null}
    </main>
  );
}
