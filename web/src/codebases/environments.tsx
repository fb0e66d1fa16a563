import { useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { shortId } from '../format.js';
import { useLiveRead } from '../live-read.js';
import { codebasePath, type Environment } from './types.js';

/**
 * The isolation environments (worktrees) of one codebase, read again when a run's status
 * changes or a node starts or ends on the stream (a run takes or frees one). Remove is
 * `DELETE /api/codebases/{owner}/{repo}/environments/{envId}`: refused while a run works in it,
 * so the button is disabled then, with why.
 */
export function Environments(props: { codebaseId: string }) {
  const base = `${codebasePath(props.codebaseId)}/environments`;
  const [list, setList] = useState<Environment[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<{ ok: boolean; message: string } | undefined>(undefined);
  const [version, setVersion] = useState(0);
  useLiveRead(
    {
      load: () => getJson<{ environments: Environment[] }>(base),
      show: (answer) => setList(answer.environments),
      showError: setError,
      onFrame: (frame, reread) => {
        // A run takes its worktree before its first node starts, and frees it when it ends.
        if (frame.type === 'workflow_status' || frame.type === 'dag_node') reread();
      },
    },
    [base, version],
  );
  const remove = async (env: Environment) => {
    setResult(undefined);
    try {
      const answer = await sendJson<{ detail: string }>('DELETE', `${base}/${encodeURIComponent(env.id)}`);
      setResult({ ok: true, message: answer.detail });
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setVersion((v) => v + 1);
  };
  return (
    <div class="environments" data-environments={props.codebaseId}>
      {error ? <p class="error-text">{error}</p> : null}
      {list && list.length === 0 ? <p class="muted">No environment: a run on this codebase makes a worktree here.</p> : null}
      {list && list.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Path</th>
              <th>Branch</th>
              <th>Status</th>
              <th>Run</th>
              <th>Idle</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((env) => (
              <tr key={env.id} data-environment={env.id}>
                <td>
                  <code>{env.working_path}</code>
                  <span class="muted"> ({env.provider})</span>
                </td>
                <td>{env.branch_name ?? '—'}</td>
                <td>{env.status}</td>
                <td>
                  <a href={`/runs/${encodeURIComponent(env.workflow_id)}`}>{shortId(env.workflow_id)}</a>
                </td>
                <td>{env.days_since_activity} d</td>
                <td>
                  <button type="button" class="btn btn-delete btn-small" data-action="remove-environment" disabled={!!env.locked_by_run} onClick={() => void remove(env)}>
                    Remove
                  </button>
                  {env.locked_by_run ? <span class="why"> run {shortId(env.locked_by_run)} works in it</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {result ? (
        <p class={result.ok ? 'result ok' : 'result error'} data-environment-result>
          {result.message}
        </p>
      ) : null}
    </div>
  );
}
