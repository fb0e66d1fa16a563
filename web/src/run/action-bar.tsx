import { useState } from 'preact/hooks';
import { useKeys } from '../keyboard.js';
import type { Run } from '../types.js';
import { actionVerdict, openGate, type RunAction } from './run-actions.js';
import { runOperation } from './run-operations.js';

const labels: Record<RunAction, string> = {
  approve: 'Approve',
  reject: 'Reject',
  cancel: 'Cancel',
  resume: 'Resume',
  abandon: 'Abandon',
  delete: 'Delete',
};

/** Asked first: these end a run or remove it for good. */
const confirmed: Partial<Record<RunAction, string>> = {
  abandon: 'Abandon this run? It ends for good (its child runs are cancelled).',
  delete: 'Delete this run and all its events? This cannot be undone.',
};

/**
 * The run's operations. Each button is disabled, with the reason beside it, when the run's
 * status does not allow it; approve and reject take the text of the field above them as the
 * comment or the reason. Resume can take the workflow's files as they are now (reload) instead of
 * the run's own copy. The server's answer (or refusal) is shown as it says it.
 */
export function ActionBar(props: { run: Run; onDone: (action: RunAction) => void }) {
  const [text, setText] = useState('');
  const [reload, setReload] = useState(false);
  const [busy, setBusy] = useState<RunAction | undefined>(undefined);
  const [result, setResult] = useState<{ ok: boolean; message: string } | undefined>(undefined);
  const gate = openGate(props.run);

  async function act(action: RunAction) {
    const question = confirmed[action];
    if (question && !window.confirm(question)) return;
    setBusy(action);
    try {
      const said = action === 'approve' || action === 'reject' ? text : '';
      const message = await runOperation(props.run.id, action, said, { reload: action === 'resume' && reload });
      setResult({ ok: true, message });
      if (action === 'approve' || action === 'reject') setText('');
      if (action === 'resume') setReload(false);
      props.onDone(action);
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    } finally {
      setBusy(undefined);
    }
  }

  const ifAllowed = (action: RunAction) => () => {
    if (actionVerdict(props.run, action).allowed && busy === undefined) void act(action);
  };
  useKeys({ a: ifAllowed('approve'), r: ifAllowed('reject') });

  const button = (action: RunAction) => {
    const verdict = actionVerdict(props.run, action);
    return (
      <div class="action" key={action}>
        <button
          type="button"
          class={`btn btn-${action}`}
          data-action={action}
          disabled={!verdict.allowed || busy !== undefined}
          title={verdict.reason ?? ''}
          onClick={() => void act(action)}
        >
          {busy === action ? `${labels[action]}…` : labels[action]}
        </button>
        {verdict.reason ? <span class="why">{verdict.reason}</span> : null}
        {action === 'resume' && verdict.allowed ? (
          <label class="reload" title="Take the workflow, command and script files as they are on disk now, rather than the copy the run started with">
            <input type="checkbox" name="resume-reload" checked={reload} onChange={(e) => setReload((e.target as HTMLInputElement).checked)} />
            with the files as they are now
          </label>
        ) : null}
      </div>
    );
  };

  return (
    <section class="actions" aria-label="Run actions">
      {gate ? (
        <div class="gate" data-gate={gate.nodeId}>
          <p>
            <strong>Waiting at gate {gate.nodeId}:</strong> {gate.message}
          </p>
          <label>
            Comment (approve) or reason (reject)
            <input
              type="text"
              name="gate-text"
              value={text}
              onInput={(e) => setText((e.target as HTMLInputElement).value)}
              placeholder="optional"
            />
          </label>
        </div>
      ) : null}
      <div class="action-row">{(['approve', 'reject', 'cancel', 'resume', 'abandon', 'delete'] as const).map(button)}</div>
      {result ? (
        <p class={result.ok ? 'result ok' : 'result error'} role="status">
          {result.message}
        </p>
      ) : null}
    </section>
  );
}
