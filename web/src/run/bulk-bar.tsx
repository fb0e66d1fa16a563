import { useState } from 'preact/hooks';
import { shortId } from '../format.js';
import type { Run } from '../types.js';
import { bulkActions, bulkVerdict, runBulk, skipped, type BulkAction, type BulkOutcome } from './bulk-actions.js';

const labels: Record<BulkAction, string> = { cancel: 'Cancel', resume: 'Resume', delete: 'Delete' };

/**
 * Above the runs list: how many runs are selected, Cancel, Resume and Delete for all of them
 * (each disabled, with the reason, when no selected run allows it; a run that does not is
 * skipped and said so), and what happened to each run, as the server said it.
 */
export function BulkBar(props: { selected: Run[]; onDone: () => void; onClear: () => void }) {
  const [busy, setBusy] = useState<BulkAction | undefined>(undefined);
  const [outcomes, setOutcomes] = useState<{ action: BulkAction; list: BulkOutcome[] } | undefined>(undefined);

  async function act(action: BulkAction) {
    const verdict = bulkVerdict(props.selected, action);
    if (verdict.reason || busy) return;
    const count = verdict.runs.length;
    if (action === 'delete' && !window.confirm(`Delete ${count} run${count > 1 ? 's' : ''} and all their events? This cannot be undone.`)) return;
    setBusy(action);
    setOutcomes(undefined);
    const list = [...(await runBulk(verdict.runs, action)), ...skipped(props.selected, action)];
    setOutcomes({ action, list });
    setBusy(undefined);
    props.onDone();
  }

  return (
    <section class="bulk" aria-label="Selected runs">
      <div class="bulk-row">
        <span data-selected-count={props.selected.length}>
          {props.selected.length} selected
          {props.selected.length > 0 ? (
            <>
              {' '}
              <button type="button" class="btn" onClick={props.onClear}>
                Clear
              </button>
            </>
          ) : null}
        </span>
        {bulkActions.map((action) => {
          const verdict = bulkVerdict(props.selected, action);
          const some = !verdict.reason && verdict.runs.length < props.selected.length ? ` ${verdict.runs.length} of ${props.selected.length}` : '';
          return (
            <span class="action" key={action}>
              <button
                type="button"
                class={`btn btn-${action}`}
                data-bulk={action}
                disabled={verdict.reason !== undefined || busy !== undefined}
                title={verdict.reason}
                onClick={() => void act(action)}
              >
                {busy === action ? `${labels[action]}…` : `${labels[action]}${some}`}
              </button>
              {verdict.reason && props.selected.length > 0 ? (
                <span class="why" data-bulk-why={action}>
                  {verdict.reason}
                </span>
              ) : null}
            </span>
          );
        })}
      </div>
      {outcomes ? (
        <ul class="bulk-results" data-bulk-results={outcomes.action}>
          {outcomes.list.map((outcome) => (
            <li key={outcome.run.id} data-bulk-result={outcome.run.id} class={outcome.ok ? 'result ok' : 'result error'}>
              {outcome.run.workflow_name} <code>{shortId(outcome.run.id)}</code>: {outcome.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
