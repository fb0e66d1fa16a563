import { useState } from 'preact/hooks';
import { sendJson } from '../api.js';
import { useCreateSubmit } from '../forms/create-submit.js';
import { useRunChoices } from '../forms/run-choices.js';
import { until } from '../format.js';
import { givenInputs, InputFields, missingInputs } from '../workflows/input-fields.js';
import { useDuePreview } from './due-preview.js';
import { overlapPolicies, type ScheduleView } from './types.js';

/** The browser's own IANA zone, the zone a new schedule is read in unless another is typed. */
const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Every IANA zone the browser knows, offered as the zone is typed (any other name is the server's to judge). */
const knownZones = (): string[] => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []);

interface Draft {
  name: string;
  workflow: string;
  cron: string;
  timezone: string;
  codebaseId: string;
  overlap: (typeof overlapPolicies)[number];
  catchUp: string;
  paused: boolean;
}

/**
 * Adds a schedule (`POST /api/schedules`): its name, the workflow (from `GET /api/workflows`) with
 * a field per input it declares, the cron expression, the IANA zone (the browser's by default), a
 * codebase (optional, from `GET /api/codebases`), the overlap policy, the catch-up window and
 * whether it starts paused. The server judges the cron expression and the zone: its refusal is
 * shown beside the form as it says it, and what was typed stays. As the expression and the zone
 * are typed, the form shows the next due times they give (`POST /api/schedules/preview`), or why
 * the server cannot use them; once added, when the new schedule is next due.
 */
export function ScheduleForm({ onCreated }: { onCreated(schedule: ScheduleView): void }) {
  const { workflows, codebases, error: choicesError } = useRunChoices();
  const [draft, setDraft] = useState<Draft>({ name: '', workflow: '', cron: '', timezone: browserZone(), codebaseId: '', overlap: 'skip', catchUp: '', paused: false });
  const [values, setValues] = useState<Record<string, string>>({});
  const [zones] = useState(knownZones);
  const { busy, error: submitError, created, submit, refuse } = useCreateSubmit<ScheduleView>();
  const error = submitError ?? choicesError;
  const preview = useDuePreview(draft.cron, draft.timezone);

  const workflow = workflows?.find((w) => w.name === draft.workflow);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const text = (key: 'name' | 'cron' | 'timezone' | 'catchUp') => (e: Event) => set(key, (e.target as HTMLInputElement).value);

  async function add(event: Event) {
    event.preventDefault();
    const missing = missingInputs(workflow?.inputs, values);
    if (missing.length > 0) {
      refuse(`Required input${missing.length > 1 ? 's' : ''} missing: ${missing.join(', ')}`);
      return;
    }
    const inputs = givenInputs(values);
    const body: Record<string, unknown> = { name: draft.name.trim(), workflow: draft.workflow, cron: draft.cron, overlap: draft.overlap, paused: draft.paused };
    if (draft.timezone.trim()) body.timezone = draft.timezone.trim();
    if (draft.codebaseId) body.codebaseId = draft.codebaseId;
    if (draft.catchUp.trim()) body.catchUp = draft.catchUp.trim();
    if (Object.keys(inputs).length > 0) body.inputs = inputs;
    await submit(() => sendJson<ScheduleView>('POST', '/api/schedules', body), (value) => {
      setDraft((d) => ({ ...d, name: '', cron: '' }));
      onCreated(value);
    });
  }

  return (
    <form class="run-form schedule-form" onSubmit={(e) => void add(e)}>
      <h3>Add a schedule</h3>
      <div class="form-grid">
        <label>
          Name
          <input type="text" name="name" required placeholder="nightly" value={draft.name} onInput={text('name')} />
        </label>
        <label>
          Workflow
          <select
            name="workflow"
            required
            value={draft.workflow}
            onChange={(e) => {
              set('workflow', (e.target as HTMLSelectElement).value);
              setValues({});
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
          <span>
            Cron <span class="muted">(minute hour day month weekday)</span>
          </span>
          <input type="text" name="cron" required placeholder="0 3 * * *" spellcheck={false} value={draft.cron} onInput={text('cron')} />
        </label>
        <label>
          Time zone
          <input type="text" name="timezone" list="schedule-zones" spellcheck={false} value={draft.timezone} onInput={text('timezone')} />
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
          Overlap
          <select name="overlap" value={draft.overlap} onChange={(e) => set('overlap', (e.target as HTMLSelectElement).value as Draft['overlap'])}>
            {overlapPolicies.map((policy) => (
              <option key={policy} value={policy}>
                {policy}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>
            Catch-up <span class="muted">(missed due times still run within it)</span>
          </span>
          <input type="text" name="catch-up" placeholder="default: 1h" spellcheck={false} value={draft.catchUp} onInput={text('catchUp')} />
        </label>
      </div>
      {preview ? (
        <div class="schedule-preview" data-schedule-preview>
          {preview.problem !== null ? (
            <p class="muted" data-schedule-preview-problem>
              {preview.problem}
            </p>
          ) : (
            <>
              <p class="muted">Due next:</p>
              <DueTimes times={preview.next_fire_times} />
            </>
          )}
        </div>
      ) : null}
      <datalist id="schedule-zones">
        {zones.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {workflow ? <InputFields inputs={workflow.inputs} values={values} onChange={setValues} /> : null}
      <label class="inline">
        <input type="checkbox" name="paused" checked={draft.paused} onChange={(e) => set('paused', (e.target as HTMLInputElement).checked)} /> Start paused
      </label>
      <p>
        <button type="submit" class="btn btn-approve" data-action="add-schedule" disabled={busy}>
          {busy ? 'Adding…' : 'Add the schedule'}
        </button>
      </p>
      {error ? (
        <p class="result error" data-schedule-error>
          {error}
        </p>
      ) : null}
      {created ? (
        <div class="schedule-created" data-schedule-created={created.name}>
          <p class="result ok">
            Added {created.name}
            {created.paused ? ', paused: no due time until it is resumed.' : '. Next due times:'}
          </p>
          {created.next_fire_times.length > 0 ? <DueTimes times={created.next_fire_times} /> : null}
        </div>
      ) : null}
    </form>
  );
}

/** Due times in the browser's time, each with how far off it is. */
function DueTimes({ times }: { times: readonly string[] }) {
  return (
    <ol class="due-times">
      {times.map((time) => (
        <li key={time}>
          <time dateTime={time} title={time}>
            {new Date(time).toLocaleString()}
          </time>{' '}
          <span class="muted">({until(time)})</span>
        </li>
      ))}
    </ol>
  );
}
