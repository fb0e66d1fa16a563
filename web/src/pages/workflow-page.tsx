import { useEffect, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { location } from '../router.js';
import { RunForm } from '../workflows/run-form.js';
import { scopeNames, workflowHref, type WorkflowEntry } from '../workflows/types.js';
import { toYaml } from '../workflows/yaml.js';

/**
 * `/workflows/<name>`: one workflow as the server loaded it (`GET /api/workflows/{name}`): its
 * scope and file, the warnings its file gave, its definition as YAML, and the form that starts a
 * run of it. `?cwd=` is the project folder it is looked up from.
 */
export function WorkflowPage({ name }: { name: string }) {
  const cwd = location.value.query.get('cwd') ?? undefined;
  const [entry, setEntry] = useState<WorkflowEntry | undefined>(undefined);
  const [yaml, setYaml] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    getJson<WorkflowEntry>(withQuery(`/api/workflows/${encodeURIComponent(name)}`, { cwd }))
      .then(async (answer) => {
        if (!live) return;
        setEntry(answer);
        const text = await toYaml(answer.workflow);
        if (live) setYaml(text);
      })
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [name, cwd]);

  return (
    <main class="page workflow-page">
      <p>
        <a href={cwd ? `/workflows?cwd=${encodeURIComponent(cwd)}` : '/workflows'}>← Workflows</a>
      </p>
      {error ? <p class="error-text" data-error="workflow">{error}</p> : null}
      {entry ? (
        <>
          <h2 data-workflow-name>{entry.workflow.name}</h2>
          <p class="muted">
            {scopeNames[entry.source]} · <code>{entry.filename}</code> ·{' '}
            <a class="btn" href={workflowHref(entry.workflow.name, cwd, '/edit')} data-action="edit">
              Edit
            </a>
          </p>
          <p>{entry.workflow.description}</p>
          {entry.parseWarnings?.map((warning) => (
            <p class="warning" key={warning}>
              {warning}
            </p>
          ))}
          <div class="workflow-body">
            <RunForm workflow={entry.workflow} cwd={cwd} />
            <section>
              <h3>Definition (as loaded)</h3>
              <pre class="yaml" data-yaml>
                {yaml ?? '…'}
              </pre>
            </section>
          </div>
        </>
      ) : null}
    </main>
  );
}
