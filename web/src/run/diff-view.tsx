import { useEffect, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { hrefWith } from '../router.js';
import { splitDiff } from './diff-lines.js';

/** `GET /api/workflows/runs/{runId}/diff` (docs/http-api.md). */
interface RunDiff {
  scope: 'run' | 'attempt';
  path: string | null;
  branch: string;
  base: string | null;
  from: string;
  to: string | null;
  files: { path: string; added: number | null; removed: number | null }[];
  diff: string;
  truncated: boolean;
}

/**
 * What the run changed in its worktree against its base branch, or (with `attempt`) what one
 * attempt changed: the files with their added and removed line counts, then each file's diff,
 * added lines green and removed ones red. Read when shown and again when `version` changes (an
 * attempt ended). A run without a worktree, or whose worktree was removed, says so as the
 * server does.
 */
export function DiffView(props: { runId: string; attempt: string | undefined; version: number }) {
  const { runId, attempt, version } = props;
  const [diff, setDiff] = useState<RunDiff | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    getJson<RunDiff>(withQuery(`/api/workflows/runs/${encodeURIComponent(runId)}/diff`, { attempt }))
      .then((answer) => live && (setDiff(answer), setError(undefined)))
      .catch((err: Error) => live && (setDiff(undefined), setError(err.message)));
    return () => {
      live = false;
    };
  }, [runId, attempt, version]);

  const files = diff ? splitDiff(diff.diff) : [];
  return (
    <section class="diff-view" aria-label="Changes">
      {attempt ? (
        <p>
          The changes of one attempt{diff?.path ? ` of ${diff.path}` : ''}. <a href={hrefWith({ attempt: undefined })}>All the run's changes</a>
        </p>
      ) : null}
      {error ? <p class="muted diff-unavailable">{error}</p> : null}
      {!diff && !error ? <p class="muted">Reading the changes…</p> : null}
      {diff ? (
        <>
          <p class="muted">
            {diff.scope === 'run' ? `Branch ${diff.branch} against ${diff.base}` : `Branch ${diff.branch}`}: from{' '}
            <code>{diff.from.slice(0, 10)}</code> to {diff.to ? <code>{diff.to.slice(0, 10)}</code> : 'the worktree as it is now'}.
          </p>
          {diff.files.length === 0 ? <p class="muted">No change.</p> : null}
          <ul class="diff-files">
            {diff.files.map((f) => (
              <li key={f.path}>
                <a href={`#diff-${encodeURIComponent(f.path)}`}>{f.path}</a>{' '}
                {f.added === null ? <span class="muted">binary</span> : (
                  <>
                    <span class="diff-added">+{f.added}</span> <span class="diff-removed">−{f.removed}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
          {files.map((file) => (
            <div class="diff-file" key={file.path} id={`diff-${encodeURIComponent(file.path)}`} data-file={file.path}>
              <div class="diff-file-name">{file.path}</div>
              <pre class="diff-lines">
                {file.lines.map((line, i) => (
                  <div key={i} class={`diff-${line.kind}`}>
                    {line.text}
                  </div>
                ))}
              </pre>
            </div>
          ))}
          {diff.truncated ? <p class="muted">The diff is cut at 1 MiB; the files list above has every file.</p> : null}
        </>
      ) : null}
    </section>
  );
}
