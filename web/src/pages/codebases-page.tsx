import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { Environments } from '../codebases/environments.js';
import { EnvKeys } from '../codebases/env-keys.js';
import { RegisterForm } from '../codebases/register-form.js';
import { codebasePath, type Codebase } from '../codebases/types.js';
import { useKeys } from '../keyboard.js';

/**
 * `/codebases`: the registered codebases (`GET /api/codebases`), registering one by path or URL
 * with the env-key consent its scan asks for, each one's environments (worktrees) with removal,
 * and deleting a codebase.
 */
export function CodebasesPage() {
  const [list, setList] = useState<Codebase[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [registered, setRegistered] = useState<Codebase | undefined>(undefined);
  /** Each registration asks afresh, even for a codebase registered before. */
  const [registrations, setRegistrations] = useState(0);
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const [result, setResult] = useState<{ ok: boolean; message: string } | undefined>(undefined);
  const [cursor, setCursor] = useState(0);
  const [version, setVersion] = useState(0);
  const field = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    getJson<{ codebases: Codebase[] }>('/api/codebases')
      .then((answer) => live && (setList(answer.codebases), setError(undefined)))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [version]);

  const codebases = list ?? [];
  const replace = (codebase: Codebase) => {
    setList((l) => l?.map((c) => (c.id === codebase.id ? codebase : c)));
    if (registered?.id === codebase.id) setRegistered(codebase);
  };
  const toggle = (id: string | undefined) => id && setOpened((o) => ({ ...o, [id]: !o[id] }));
  const remove = async (codebase: Codebase) => {
    const what = codebase.managed ? 'and delete the clone Cairn made' : '(the folder itself stays on disk)';
    if (!window.confirm(`Remove the codebase ${codebase.id} and its worktrees ${what}?`)) return;
    setResult(undefined);
    try {
      const answer = await sendJson<{ removedPath: string | null }>('DELETE', codebasePath(codebase.id));
      setResult({
        ok: true,
        message: answer.removedPath ? `Removed ${codebase.id}; its clone at ${answer.removedPath} was deleted.` : `Removed ${codebase.id}; its folder ${codebase.default_cwd} is left on disk.`,
      });
      if (registered?.id === codebase.id) setRegistered(undefined);
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setVersion((v) => v + 1);
  };
  useKeys({
    j: () => setCursor((c) => Math.min(codebases.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => toggle(codebases[cursor]?.id),
    '/': () => field.current?.focus(),
  });

  return (
    <main class="page codebases-page">
      <h2>Codebases</h2>
      <RegisterForm
        field={field}
        onRegistered={(codebase) => {
          setRegistered(codebase);
          setRegistrations((n) => n + 1);
          setResult(undefined);
          setVersion((v) => v + 1);
        }}
      />
      {registered ? (
        <div class="registered" data-registered={registered.id}>
          <p class="result ok">
            <strong>{registered.id}</strong> is registered ({registered.kind}) at <code>{registered.default_cwd}</code>.
          </p>
          <EnvKeys key={registrations} codebase={registered} onChanged={replace} asked />
        </div>
      ) : null}
      {result ? (
        <p class={result.ok ? 'result ok' : 'result error'} data-codebase-result>
          {result.message}
        </p>
      ) : null}
      {error ? <p class="error-text">{error}</p> : null}
      {list && codebases.length === 0 ? <p class="muted">No codebase is registered: register a folder or a repository above.</p> : null}
      <ul class="codebase-list">
        {codebases.map((c, i) => (
          <li key={c.id} data-codebase-row={i} data-codebase={c.id} class={i === cursor ? 'cursor' : ''} onClick={() => setCursor(i)}>
            <div class="codebase-head">
              <strong>{c.id}</strong>
              <span class="muted">
                {c.kind}
                {c.managed ? ' · cloned by Cairn' : ''}
                {c.default_branch ? ` · ${c.default_branch}` : ''}
              </span>
              <button type="button" class="btn btn-delete btn-small" data-action="delete-codebase" onClick={() => void remove(c)}>
                Delete
              </button>
            </div>
            <p>
              <code>{c.default_cwd}</code>
              {c.repository_url ? (
                <>
                  {' '}
                  · <code>{c.repository_url}</code>
                </>
              ) : null}
            </p>
            <p>
              <span class="label">Env keys</span>
              <EnvKeys codebase={c} onChanged={replace} />
            </p>
            <button type="button" class="btn btn-small" data-action="environments" aria-expanded={!!opened[c.id]} onClick={() => toggle(c.id)}>
              {opened[c.id] ? 'Hide environments' : 'Environments'}
            </button>
            {opened[c.id] ? <Environments codebaseId={c.id} /> : null}
          </li>
        ))}
      </ul>
    </main>
  );
}
