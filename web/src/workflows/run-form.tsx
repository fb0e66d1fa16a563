import { useState } from 'preact/hooks';
import { formWithFiles, sendForm, sendJson, withQuery } from '../api.js';
import { AttachmentPicker } from '../attachments/attachment-picker.js';
import { navigate } from '../router.js';
import { givenInputs, InputFields, missingInputs } from './input-fields.js';
import type { WorkflowDefinition } from './types.js';

/**
 * Starts a run of a workflow: a field for the message ($ARGUMENTS) and one per input the
 * workflow declares (required ones marked, defaults shown), sent as the API takes it,
 * `POST /api/workflows/{name}/run` with `{ message, inputs }` (and `?cwd=` when the page looks
 * from a project); with files attached, the same fields as multipart with the files (they land
 * in the run's `$ATTACHMENTS_DIR`). Then the page goes to the new run. A refusal is shown as the
 * server says it.
 */
export function RunForm({ workflow, cwd }: { workflow: WorkflowDefinition; cwd: string | undefined }) {
  const [message, setMessage] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function start(event: Event) {
    event.preventDefault();
    const missing = missingInputs(workflow.inputs, values);
    if (missing.length > 0) {
      setError(`Required input${missing.length > 1 ? 's' : ''} missing: ${missing.join(', ')}`);
      return;
    }
    const inputs = givenInputs(values);
    const body: Record<string, unknown> = {};
    if (message.trim()) body.message = message;
    if (Object.keys(inputs).length > 0) body.inputs = inputs;
    setBusy(true);
    setError(undefined);
    try {
      const path = withQuery(`/api/workflows/${encodeURIComponent(workflow.name)}/run`, { cwd });
      const answer =
        files.length > 0 ? await sendForm<{ runId: string }>(path, formWithFiles(body, files)) : await sendJson<{ runId: string }>('POST', path, body);
      navigate(`/runs/${answer.runId}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  }

  return (
    <form class="run-form" onSubmit={(e) => void start(e)}>
      <h3>Start a run</h3>
      <label>
        Message <span class="muted">($ARGUMENTS)</span>
        <textarea name="message" rows={2} value={message} onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)} />
      </label>
      <InputFields inputs={workflow.inputs} values={values} onChange={setValues} />
      <AttachmentPicker files={files} onChange={setFiles} kind="run request" disabled={busy} />
      <p>
        <button type="submit" class="btn btn-approve" data-action="start-run" disabled={busy}>
          {busy ? 'Starting…' : 'Start the run'}
        </button>
      </p>
      {error ? <p class="result error" data-run-error>{error}</p> : null}
    </form>
  );
}
