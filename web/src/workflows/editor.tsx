import { useEffect, useRef, useState } from 'preact/hooks';
import { sendJson, withQuery } from '../api.js';
import { navigate } from '../router.js';
import { checkWorkflowText, type Check } from './check.js';
import { scopeNames, workflowHref, type WorkflowEntry } from './types.js';

/**
 * The YAML editor: a text area checked as you type (a moment after typing stops) through the
 * validate route, its problems listed with their lines (a click puts the cursor there), and Save,
 * which writes the text as it is (comments kept) to the project folder's or the home's workflows
 * (`PUT /api/workflows/{name}/file`).
 * Save stays disabled, with the reason, until the text on screen is the text found valid: the
 * editor never sends a workflow it knows is invalid (the server would refuse it too).
 */

export const CHECK_DELAY_MS = 300;

type Scope = 'project' | 'global';

export function WorkflowEditor({ initial, cwd, scope: initialScope }: { initial: string; cwd: string | undefined; scope: Scope }) {
  const [text, setText] = useState(initial);
  // The check of `checkedText`; undefined while the text on screen has not been checked yet.
  const [check, setCheck] = useState<{ text: string; result: Check } | undefined>(undefined);
  const [checkError, setCheckError] = useState<string | undefined>(undefined);
  const [scope, setScope] = useState<Scope>(initialScope === 'project' && !cwd ? 'global' : initialScope);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const area = useRef<HTMLTextAreaElement>(null);
  const latest = useRef(0);

  useEffect(() => {
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      checkWorkflowText(text, cwd)
        .then((result) => {
          if (ticket !== latest.current) return;
          setCheck({ text, result });
          setCheckError(undefined);
        })
        .catch((err: Error) => ticket === latest.current && setCheckError(err.message));
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, cwd]);

  const current = check && check.text === text ? check.result : undefined;
  const name = current?.valid ? current.definition.name : undefined;
  let blocked: string | undefined;
  if (!current) blocked = checkError ? `Cannot check the workflow: ${checkError}` : 'Checking…';
  else if (!current.valid) blocked = `The workflow is invalid (${current.problems.length} problem${current.problems.length > 1 ? 's' : ''}): fix it to save`;
  else if (typeof name !== 'string' || name === '') blocked = 'The workflow needs a name: to save it';
  else if (scope === 'project' && !cwd) blocked = 'Saving to a project needs a project folder (open the editor from a workflows page with one)';

  function goToLine(line: number | undefined) {
    const element = area.current;
    if (!element || line === undefined) return;
    const lines = element.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0);
    element.focus();
    element.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  }

  async function save() {
    if (blocked || !current?.valid) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      const saved = await sendJson<WorkflowEntry>(
        'PUT',
        withQuery(`/api/workflows/${encodeURIComponent(String(name))}/file`, { source: scope, cwd: scope === 'project' ? cwd : undefined }),
        { text },
      );
      navigate(workflowHref(saved.workflow.name, cwd));
    } catch (err) {
      setSaveError((err as Error).message);
      setSaving(false);
    }
  }

  return (
    <div class="editor">
      <textarea
        ref={area}
        class="yaml-editor"
        name="yaml"
        spellcheck={false}
        rows={28}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <div class="editor-side">
        <p data-check-state={current ? (current.valid ? 'valid' : 'invalid') : 'checking'} class={current?.valid ? 'result ok' : 'muted'}>
          {current ? (current.valid ? 'Valid' : 'Problems:') : checkError ? '' : 'Checking…'}
        </p>
        {current && !current.valid ? (
          <ul class="problems">
            {current.problems.map((problem, i) => (
              <li key={i} data-problem-line={problem.line ?? ''} onClick={() => goToLine(problem.line)}>
                {problem.line !== undefined ? <span class="line">line {problem.line}</span> : null}
                <span class="error-text">{problem.message}</span>
              </li>
            ))}
          </ul>
        ) : null}
        <label>
          Save to
          <select name="scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope)}>
            <option value="project">{scopeNames.project} ({cwd ?? 'no folder chosen'})</option>
            <option value="global">{scopeNames.global}</option>
          </select>
        </label>
        <p>
          <button type="button" class="btn btn-approve" data-action="save" disabled={blocked !== undefined || saving} onClick={() => void save()}>
            {saving ? 'Saving…' : 'Save'}
          </button>{' '}
          {blocked ? <span class="why" data-save-blocked>{blocked}</span> : null}
        </p>
        {saveError ? <p class="result error" data-save-error>{saveError}</p> : null}
      </div>
    </div>
  );
}
