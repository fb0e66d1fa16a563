import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { useKeys } from '../keyboard.js';
import { hrefWith, location, navigate } from '../router.js';
import { scopeNames, scopeOrder, withCwd, workflowHref, type WorkflowEntry, type WorkflowList } from '../workflows/types.js';

/**
 * `/workflows`: every workflow the server lists (`GET /api/workflows`), by scope (project, home,
 * bundled), each with the warnings its file gave; then the files that did not load, with why.
 * `?cwd=` is the project folder whose `.cairn/workflows` is listed too; `?q=` filters by name;
 * `?tag=` keeps the workflows whose `tags:` hold that tag (each row shows its tags: one is a link to
 * that filter).
 */
export function WorkflowsPage() {
  const query = location.value.query;
  const cwd = query.get('cwd') ?? undefined;
  const q = query.get('q') ?? '';
  const tag = query.get('tag') ?? '';
  const [list, setList] = useState<WorkflowList | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [folder, setFolder] = useState(cwd ?? '');
  const [cursor, setCursor] = useState(0);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    setError(undefined);
    getJson<WorkflowList>(withQuery('/api/workflows', { cwd }))
      .then((answer) => live && setList(answer))
      .catch((err: Error) => {
        if (!live) return;
        setList(undefined);
        setError(err.message);
      });
    return () => {
      live = false;
    };
  }, [cwd]);
  useEffect(() => setFolder(cwd ?? ''), [cwd]);

  const needle = q.toLowerCase();
  const tagsOf = (entry: WorkflowEntry): string[] => (Array.isArray(entry.workflow.tags) ? (entry.workflow.tags as string[]) : []);
  const allTags = [...new Set((list?.workflows ?? []).flatMap(tagsOf))].sort();
  const shown = (list?.workflows ?? []).filter(
    (entry) => entry.workflow.name.toLowerCase().includes(needle) && (tag === '' || tagsOf(entry).includes(tag)),
  );
  const ordered = scopeOrder.flatMap((scope) => shown.filter((entry) => entry.source === scope));
  const open = (entry: WorkflowEntry | undefined) => entry && navigate(workflowHref(entry.workflow.name, cwd));
  useKeys({
    j: () => setCursor((c) => Math.min(ordered.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => open(ordered[cursor]),
    '/': () => search.current?.focus(),
  });
  useEffect(() => {
    document.querySelector(`[data-workflow-row="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);

  return (
    <main class="page workflows-page">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(hrefWith({ cwd: folder.trim() }), { replace: true });
        }}
      >
        <label class="grow">
          Project folder
          <input
            type="text"
            name="cwd"
            placeholder="absolute path of a project: its .cairn/workflows are listed too"
            value={folder}
            onInput={(e) => setFolder((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="btn">
          Look
        </button>
        <a class="btn" href={withCwd('/new-workflow', cwd)} data-action="new-workflow">
          New workflow
        </a>
        <label>
          Search
          <input
            ref={search}
            type="search"
            name="q"
            placeholder="name  ( / )"
            value={q}
            onInput={(e) => navigate(hrefWith({ q: (e.target as HTMLInputElement).value }), { replace: true })}
          />
        </label>
        <label>
          Tag
          <select name="tag" value={tag} onChange={(e) => navigate(hrefWith({ tag: (e.target as HTMLSelectElement).value }))}>
            <option value="">all tags</option>
            {/* A tag in the address that no workflow has (any more) still shows, so the filter can be seen and cleared. */}
            {(tag !== '' && !allTags.includes(tag) ? [...allTags, tag] : allTags).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error ? <p class="error-text" data-error="list">{error}</p> : null}
      {list?.configWarnings?.map((warning) => (
        <p class="warning" key={warning}>
          {warning}
        </p>
      ))}
      {scopeOrder.map((scope) => {
        const entries = ordered.filter((entry) => entry.source === scope);
        if (entries.length === 0) return null;
        return (
          <section key={scope} data-scope={scope}>
            <h2>
              {scopeNames[scope]} <span class="count">{entries.length}</span>
            </h2>
            <table class="workflows">
              <tbody>
                {entries.map((entry) => {
                  const i = ordered.indexOf(entry);
                  return (
                    <tr key={entry.workflow.name} data-workflow-row={i} data-workflow={entry.workflow.name} class={i === cursor ? 'cursor' : ''} onClick={() => setCursor(i)}>
                      <td>
                        <a href={workflowHref(entry.workflow.name, cwd)}>{entry.workflow.name}</a>
                      </td>
                      <td class="clip">{entry.workflow.description}</td>
                      <td class="tags">
                        {tagsOf(entry).map((name) => (
                          <a key={name} class="tag" data-tag={name} href={hrefWith({ tag: name })}>
                            {name}
                          </a>
                        ))}
                      </td>
                      <td>
                        <code>{entry.filename}</code>
                      </td>
                      <td>
                        {entry.parseWarnings?.map((warning) => (
                          <p class="warning" key={warning}>
                            {warning}
                          </p>
                        ))}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
        );
      })}
      {list && ordered.length === 0 ? <p class="muted">No workflow matches.</p> : null}
      {list?.errors?.length ? (
        <section data-load-errors>
          <h2>Did not load</h2>
          <ul class="load-errors">
            {list.errors.map((err) => (
              <li key={`${err.source}/${err.filename}`} data-load-error={err.filename}>
                <code>{err.filename}</code> ({scopeNames[err.source]}, {err.errorType.replace('_', ' ')}): <span class="error-text">{err.error}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </main>
  );
}
