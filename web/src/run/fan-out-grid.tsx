import { useState } from 'preact/hooks';
import { sendJson, withQuery, getJson } from '../api.js';
import { duration } from '../format.js';
import { useLiveRead } from '../live-read.js';
import type { RunStatus } from '../types.js';
import { topNodeId } from './node-states.js';

/** `GET /api/workflows/runs/{runId}/fan-out/{nodeId}` (docs/http-api.md), the fields shown. */
interface FanOutItem {
  index: number;
  item: unknown;
  childRunId: string | null;
  status: 'pending' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
  attempts: number;
  durationMs: number | null;
  costUsd: number | null;
  outputPreview: string | null;
  error: string | null;
}
interface FanOutGrid {
  mode: 'in_run' | 'child_runs' | null;
  total: number;
  counts: Record<FanOutItem['status'], number>;
  items: FanOutItem[];
  nextOffset: number | null;
}

const PAGE = 100;
const itemText = (item: unknown) => (typeof item === 'string' ? item : JSON.stringify(item));

/**
 * A fan-out node's items, a page of 100 at a time (a fan-out of thousands pages on the server),
 * each with its state, attempts, duration, cost, output or error and, for child runs, a link to
 * its run; the counts per state over all items; and **Retry the failed items** when the run has
 * ended with some (`POST …/fan-out/{nodeId}/retry`). Read again when an event of this node
 * arrives on the stream.
 */
export function FanOutGridView(props: { runId: string; nodeId: string; runStatus: RunStatus; onRetried(): void }) {
  const { runId, nodeId } = props;
  const [offset, setOffset] = useState(0);
  const [grid, setGrid] = useState<FanOutGrid | undefined>(undefined);
  // The offset the items on screen were read for: the pager says which items are shown, not which are asked for.
  const [shown, setShown] = useState(0);
  const [error, setError] = useState<string | undefined>(undefined);
  const [said, setSaid] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const base = `/api/workflows/runs/${encodeURIComponent(runId)}/fan-out/${encodeURIComponent(nodeId)}`;

  useLiveRead<FanOutGrid>(
    {
      load: () => getJson<FanOutGrid>(withQuery(base, { limit: PAGE, offset })),
      show: (answer) => {
        setGrid(answer);
        setShown(offset);
      },
      showError: setError,
      onFrame(frame, reread) {
        if (frame.runId !== runId) return;
        const path = frame.stepName ?? frame.nodeId;
        if (frame.type === 'workflow_status' || (typeof path === 'string' && topNodeId(path) === nodeId)) reread();
      },
    },
    [base, offset],
  );

  const failed = grid ? grid.counts.failed + grid.counts.cancelled : 0;
  const ended = props.runStatus === 'completed' || props.runStatus === 'failed';
  const retryBlocked = failed === 0 ? 'No failed item to retry' : !ended ? `The run is ${props.runStatus}: failed items can be retried once it has ended` : undefined;
  const retry = async () => {
    setBusy(true);
    try {
      const answer = await sendJson<{ message: string }>('POST', `${base}/retry`);
      setSaid({ ok: true, text: answer.message });
      props.onRetried();
    } catch (err) {
      setSaid({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="fan-out" aria-label={`Fan-out ${nodeId}`}>
      <h4>Fan-out items</h4>
      {error ? <p class="error-text">{error}</p> : null}
      {!grid ? <p class="muted">Reading the items…</p> : null}
      {grid ? (
        <>
          <p class="fan-out-counts">
            {grid.total} items
            {(Object.keys(grid.counts) as FanOutItem['status'][])
              .filter((s) => grid.counts[s] > 0)
              .map((s) => (
                <span key={s} class={`badge status-${s}`}>
                  {grid.counts[s]} {s}
                </span>
              ))}
          </p>
          <p>
            <button type="button" class="fan-out-retry" disabled={busy || retryBlocked !== undefined} onClick={() => void retry()}>
              Retry the failed items
            </button>{' '}
            {retryBlocked ? <span class="muted">{retryBlocked}</span> : null}
          </p>
          {said ? <p class={said.ok ? 'muted' : 'error-text'}>{said.text}</p> : null}
          <ol class="fan-out-items" start={shown + 1}>
            {grid.items.map((item) => (
              <li key={item.index} class={`fan-out-item item-${item.status}`} data-item-index={item.index}>
                <span class={`badge status-${item.status}`}>{item.status}</span> <code>{itemText(item.item)}</code>
                {item.attempts > 1 ? <span class="muted"> · {item.attempts} attempts</span> : null}
                {item.durationMs !== null ? <span class="muted"> · {duration(item.durationMs)}</span> : null}
                {item.costUsd !== null ? <span class="muted"> · ${item.costUsd.toFixed(4)}</span> : null}
                {item.childRunId ? (
                  <>
                    {' '}
                    · <a href={`/runs/${item.childRunId}`}>its run</a>
                  </>
                ) : null}
                {item.error ? <pre class="error-text">{item.error}</pre> : null}
                {item.outputPreview ? <pre class="output">{item.outputPreview}</pre> : null}
              </li>
            ))}
          </ol>
          {grid.total > PAGE ? (
            <p class="pager">
              <button type="button" disabled={shown === 0} onClick={() => setOffset(Math.max(0, shown - PAGE))}>
                Previous
              </button>{' '}
              items {shown + 1}–{Math.min(shown + PAGE, grid.total)} of {grid.total}{' '}
              <button type="button" disabled={grid.nextOffset === null} onClick={() => setOffset(grid.nextOffset ?? shown)}>
                Next
              </button>
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
