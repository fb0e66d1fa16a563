import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { ago, shortId } from '../format.js';
import { useKeys } from '../keyboard.js';
import { useLiveRead } from '../live-read.js';
import { navigate } from '../router.js';
import { openGate } from '../run/run-actions.js';
import { runOperation } from '../run/run-operations.js';
import type { DashboardPage, DashboardRun } from '../types.js';

/**
 * `/approvals`: every run paused at a gate nobody has answered, oldest first, each answered from
 * the list (approve with a comment, reject with a reason). Read again whenever a run's status
 * changes on the stream. A run blocked on a child run's gate shows the child to answer instead.
 */
export function ApprovalsPage() {
  const [runs, setRuns] = useState<DashboardRun[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [results, setResults] = useState<Record<string, { ok: boolean; message: string }>>({});
  const [cursor, setCursor] = useState(0);
  useLiveRead(
    {
      load: () => getJson<DashboardPage>('/api/dashboard/runs?status=paused&limit=200'),
      show: (page) => setRuns(page.runs.filter((run) => openGate(run)).reverse()),
      showError: setError,
      onFrame: (frame, reread) => {
        if (frame.type === 'workflow_status') reread();
      },
    },
    [],
  );

  const list = runs ?? [];
  async function answer(run: DashboardRun | undefined, action: 'approve' | 'reject') {
    if (!run) return;
    try {
      const message = await runOperation(run.id, action, texts[run.id] ?? '');
      setResults((r) => ({ ...r, [run.id]: { ok: true, message } }));
    } catch (err) {
      setResults((r) => ({ ...r, [run.id]: { ok: false, message: (err as Error).message } }));
    }
  }
  useKeys({
    j: () => setCursor((c) => Math.min(list.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => list[cursor] && navigate(`/runs/${list[cursor]!.id}`),
    a: () => void answer(list[cursor], 'approve'),
    r: () => void answer(list[cursor], 'reject'),
  });

  return (
    <main class="page approvals-page">
      <h2>Waiting for you</h2>
      {error ? <p class="error-text">{error}</p> : null}
      {runs && list.length === 0 ? <p class="muted">No run is waiting at a gate.</p> : null}
      <ul class="approvals">
        {list.map((run, i) => {
          const gate = openGate(run)!;
          const result = results[run.id];
          const child = gate.type === 'child_workflow';
          return (
            <li key={run.id} data-approval={run.id} class={i === cursor ? 'cursor' : ''} onClick={() => setCursor(i)}>
              <p>
                <a href={`/runs/${run.id}`}>{run.workflow_name}</a> <code>{shortId(run.id)}</code> · gate <strong>{gate.nodeId}</strong> · paused{' '}
                {ago(run.last_activity_at)}
              </p>
              <p class="message">{gate.message}</p>
              {child ? (
                <p class="muted">
                  Blocked on its child run: answer it at <a href={`/runs/${gate.childRunId ?? ''}`}>{shortId(gate.childRunId ?? '')}</a>.
                </p>
              ) : (
                <div class="answer">
                  <input
                    type="text"
                    name="gate-text"
                    placeholder="comment (approve) or reason (reject)"
                    value={texts[run.id] ?? ''}
                    onInput={(e) => setTexts((t) => ({ ...t, [run.id]: (e.target as HTMLInputElement).value }))}
                  />
                  <button type="button" class="btn btn-approve" data-action="approve" onClick={() => void answer(run, 'approve')}>
                    Approve
                  </button>
                  <button type="button" class="btn btn-reject" data-action="reject" onClick={() => void answer(run, 'reject')}>
                    Reject
                  </button>
                </div>
              )}
              {result ? <p class={result.ok ? 'result ok' : 'result error'}>{result.message}</p> : null}
            </li>
          );
        })}
      </ul>
    </main>
  );
}
