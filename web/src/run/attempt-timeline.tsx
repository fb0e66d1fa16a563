import { duration } from '../format.js';
import type { Run, WorkflowNode } from '../types.js';
import type { Attempt, NodeView } from './node-states.js';

/**
 * Every attempt of the run on one time axis, in the order they started: a bar from its start to
 * its end (or now, while it runs), the time it waited before it started, and which attempt of
 * its node it was. The wait is counted from when it could start: the end of the last of its
 * `depends_on` nodes (or the run's start) for a first attempt, the end of the attempt before it
 * for a retry; it is time spent queued for a slot, or a retry's back-off.
 */

export interface TimelineRow {
  path: string;
  nodeId: string;
  attempt: Attempt;
  /** 1 for a node's first attempt at this path, 2 for its first retry ... */
  number: number;
  startMs: number;
  endMs: number | undefined;
  waitMs: number | undefined;
}

const at = (iso: string | undefined) => (iso ? Date.parse(iso) : NaN);

export function timelineRows(run: Run, nodes: readonly WorkflowNode[], views: ReadonlyMap<string, NodeView>): TimelineRow[] {
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  const runStart = at(run.started_at ?? run.created_at);
  const lastEnd = (id: string): number | undefined => {
    const ends = (views.get(id)?.attempts ?? []).map((a) => at(a.endedAt)).filter(Number.isFinite);
    return ends.length ? Math.max(...ends) : undefined;
  };
  const rows: TimelineRow[] = [];
  for (const view of views.values()) {
    const byPath = new Map<string, number>();
    let previousEnd: number | undefined;
    for (const attempt of view.attempts) {
      const startMs = at(attempt.startedAt);
      if (!Number.isFinite(startMs)) continue;
      const number = (byPath.get(attempt.path) ?? 0) + 1;
      byPath.set(attempt.path, number);
      const endMs = Number.isFinite(at(attempt.endedAt)) ? at(attempt.endedAt) : undefined;
      let ready: number | undefined;
      if (attempt.path === view.id) {
        if (number > 1) ready = previousEnd;
        else {
          const depEnds = (deps.get(view.id) ?? []).map(lastEnd).filter((v): v is number => v !== undefined);
          ready = Math.max(runStart, ...depEnds);
        }
        previousEnd = endMs;
      }
      const waitMs = ready !== undefined && Number.isFinite(ready) ? Math.max(0, startMs - ready) : undefined;
      rows.push({ path: attempt.path, nodeId: view.id, attempt, number, startMs, endMs, waitMs });
    }
  }
  return rows.sort((a, b) => a.startMs - b.startMs);
}

export function AttemptTimeline(props: { run: Run; nodes: readonly WorkflowNode[]; views: ReadonlyMap<string, NodeView>; onSelect(id: string): void }) {
  const rows = timelineRows(props.run, props.nodes, props.views);
  if (rows.length === 0) return <p class="muted">No attempt has started yet.</p>;
  const now = Date.now();
  const start = Math.min(...rows.map((r) => r.startMs));
  const end = Math.max(...rows.map((r) => r.endMs ?? now), start + 1);
  const span = end - start;
  const pct = (ms: number) => `${((ms / span) * 100).toFixed(2)}%`;
  return (
    <table class="timeline" aria-label="Timeline">
      <thead>
        <tr>
          <th>Node</th>
          <th>Attempt</th>
          <th>Waited</th>
          <th>Ran</th>
          <th class="timeline-axis">0 → {duration(span)}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i} data-timeline-path={row.path} class={`state-${row.attempt.state}`}>
            <td>
              <a href="#" onClick={(e) => (e.preventDefault(), props.onSelect(row.nodeId))}>
                {row.path}
              </a>
            </td>
            <td>{row.number === 1 ? 'first' : `retry ${row.number - 1}`}</td>
            <td>{row.waitMs === undefined ? '—' : duration(row.waitMs)}</td>
            <td>{row.endMs === undefined ? `${row.attempt.state}…` : duration(row.attempt.durationMs ?? row.endMs - row.startMs)}</td>
            <td class="timeline-axis">
              <div class="timeline-track">
                {row.waitMs ? <WaitBar from={Math.max(start, row.startMs - row.waitMs) - start} to={row.startMs - start} pct={pct} /> : null}
                <span
                  class={`timeline-bar bar-${row.attempt.state}`}
                  style={{ left: pct(row.startMs - start), width: `max(2px, ${pct((row.endMs ?? now) - row.startMs)})` }}
                  title={`${row.attempt.state}`}
                />
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WaitBar(props: { from: number; to: number; pct(ms: number): string }) {
  return <span class="timeline-wait" style={{ left: props.pct(props.from), width: props.pct(props.to - props.from) }} />;
}
