import { useState } from 'preact/hooks';
import { sendJson } from '../api.js';
import { useCreateSubmit } from '../forms/create-submit.js';
import { useRunChoices } from '../forms/run-choices.js';
import { hookPath, type Hook } from './types.js';

interface Draft {
  name: string;
  workflow: string;
  codebaseId: string;
  signature: Hook['signature'];
  secret: string;
}

const empty: Draft = { name: '', workflow: '', codebaseId: '', signature: 'generic', secret: '' };

/**
 * Adds a webhook (`POST /api/hooks`): its name, the workflow (from `GET /api/workflows`) with a
 * payload path per input it declares (a required input without a default marked: the server
 * refuses a hook that leaves one unmapped), a codebase (optional), the signature form, and the
 * secret. The secret is typed into a password field, sent once and then emptied; no answer holds
 * it, so it is never shown. A refusal is shown as the server says it, with what was typed kept.
 */
export function HookForm({ onCreated }: { onCreated(hook: Hook): void }) {
  const { workflows, codebases, error: choicesError } = useRunChoices();
  const [draft, setDraft] = useState<Draft>(empty);
  const [paths, setPaths] = useState<Record<string, string>>({});
  const { busy, error: submitError, created, submit } = useCreateSubmit<Hook>();
  const error = submitError ?? choicesError;

  const workflow = workflows?.find((w) => w.name === draft.workflow);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  async function add(event: Event) {
    event.preventDefault();
    const inputs = Object.fromEntries(Object.entries(paths).filter(([, path]) => path.trim() !== '').map(([input, path]) => [input, path.trim()]));
    const body: Record<string, unknown> = { name: draft.name.trim(), workflow: draft.workflow, signature: draft.signature, secret: draft.secret, inputs };
    if (draft.codebaseId) body.codebaseId = draft.codebaseId;
    await submit(() => sendJson<Hook>('POST', '/api/hooks', body), (value) => {
      setDraft((d) => ({ ...d, name: '', secret: '' }));
      onCreated(value);
    });
  }

  return (
    <form class="run-form schedule-form hook-form" onSubmit={(e) => void add(e)}>
      <h3>Add a webhook</h3>
      <div class="form-grid">
        <label>
          Name
          <input type="text" name="name" required placeholder="ci-build" value={draft.name} onInput={(e) => set('name', (e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Workflow
          <select
            name="workflow"
            required
            value={draft.workflow}
            onChange={(e) => {
              set('workflow', (e.target as HTMLSelectElement).value);
              setPaths({});
            }}
          >
            <option value="">{workflows ? 'choose a workflow' : 'loading…'}</option>
            {(workflows ?? []).map((w) => (
              <option key={w.name} value={w.name}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Codebase
          <select name="codebase" value={draft.codebaseId} onChange={(e) => set('codebaseId', (e.target as HTMLSelectElement).value)}>
            <option value="">none</option>
            {codebases.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Signature
          <select name="signature" value={draft.signature} onChange={(e) => set('signature', (e.target as HTMLSelectElement).value as Hook['signature'])}>
            <option value="generic">generic (X-Cairn-Signature, timestamped)</option>
            <option value="github">github (X-Hub-Signature-256)</option>
          </select>
        </label>
        <label>
          <span>
            Secret <span class="muted">(at least 16 characters; never shown again)</span>
          </span>
          <input
            type="password"
            name="secret"
            required
            autocomplete="new-password"
            value={draft.secret}
            onInput={(e) => set('secret', (e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {workflow && Object.keys(workflow.inputs ?? {}).length > 0 ? (
        <fieldset class="hook-mapping">
          <legend>Inputs from the payload</legend>
          {Object.entries(workflow.inputs ?? {}).map(([name, input]) => {
            const needed = input.required === true && input.default === undefined;
            return (
              <label key={name} data-mapping-input={name}>
                <span>
                  {name}
                  {needed ? <span class="required"> * required</span> : null}
                  {input.default !== undefined ? <span class="muted"> · unmapped: {input.default}</span> : null}
                </span>
                <input
                  type="text"
                  name={`path-${name}`}
                  placeholder="$.path.in.payload"
                  spellcheck={false}
                  value={paths[name] ?? ''}
                  onInput={(e) => setPaths((p) => ({ ...p, [name]: (e.target as HTMLInputElement).value }))}
                />
              </label>
            );
          })}
        </fieldset>
      ) : null}
      <p>
        <button type="submit" class="btn btn-approve" data-action="add-hook" disabled={busy}>
          {busy ? 'Adding…' : 'Add the webhook'}
        </button>
      </p>
      {error ? (
        <p class="result error" data-hook-error>
          {error}
        </p>
      ) : null}
      {created ? (
        <p class="result ok" data-hook-created={created.name}>
          Added {created.name}: its sender signs with the secret and sends to <code>POST {hookPath(created.name)}</code> (docs/webhooks.md).
        </p>
      ) : null}
    </form>
  );
}
