import { useEffect, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { location } from '../router.js';
import { WorkflowEditor } from '../workflows/editor.js';
import { scopeNames, withCwd, workflowHref, type WorkflowEntry, type WorkflowFile } from '../workflows/types.js';

const NEW_WORKFLOW = `name: my-workflow
description: what it does
nodes:
  - id: first
    bash: echo hello
`;

/**
 * `/workflows/<name>/edit`: the editor on the text of the workflow's file (`GET …/file`; saved by default
 * where it came from, or to the home scope for a bundled one); `/new-workflow`: the editor on a
 * small example. `?cwd=` is the project folder (project saves go to its `.cairn/workflows`).
 */
export function WorkflowEditPage({ name }: { name: string | undefined }) {
  const cwd = location.value.query.get('cwd') ?? undefined;
  const [entry, setEntry] = useState<{ text: string; source: WorkflowEntry['source']; filename?: string } | undefined>(
    name === undefined ? { text: NEW_WORKFLOW, source: cwd ? 'project' : 'global' } : undefined,
  );
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (name === undefined) return;
    let live = true;
    getJson<WorkflowFile>(withQuery(`/api/workflows/${encodeURIComponent(name)}/file`, { cwd }))
      .then((answer) => live && setEntry({ text: answer.text, source: answer.source, filename: answer.filename }))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [name, cwd]);

  return (
    <main class="page workflow-edit-page">
      <p>
        <a href={name === undefined ? withCwd('/workflows', cwd) : workflowHref(name, cwd)}>← {name ?? 'Workflows'}</a>
      </p>
      <h2>{name === undefined ? 'New workflow' : `Edit ${name}`}</h2>
      {entry && name !== undefined ? (
        <p class="muted">
          The file <code>{entry.filename}</code> of the {scopeNames[entry.source]} scope, as it is on disk: saving writes this text as
          it is, comments and layout included.
        </p>
      ) : null}
      {error ? <p class="error-text" data-error="workflow">{error}</p> : null}
      {entry ? <WorkflowEditor initial={entry.text} cwd={cwd} scope={entry.source === 'project' ? 'project' : 'global'} /> : null}
    </main>
  );
}
