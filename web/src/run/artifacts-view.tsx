import { useEffect, useState } from 'preact/hooks';
import { ApiError, getJson } from '../api.js';
import { ago, size } from '../format.js';

/** `GET /api/runs/{runId}/artifacts` (docs/http-api.md). */
interface ArtifactFile {
  path: string;
  size: number;
  modifiedAt: string;
}

/** Longest file shown in the page; a longer one is offered as a download. */
const SHOW_MAX = 512 * 1024;
const textTypes = /^(text\/|application\/(json|x-ndjson|yaml|x-yaml|xml|javascript)\b)/;

const fileUrl = (runId: string, path: string) => `/api/artifacts/${encodeURIComponent(runId)}/${path.split('/').map(encodeURIComponent).join('/')}`;

/**
 * The files the run wrote under its `$ARTIFACTS_DIR`, read again when `version` changes (a node
 * ended); a click shows one: text as text (never as HTML: an artifact is as hostile as any agent
 * output), anything else, or a text too long to show, as a download.
 */
export function ArtifactsView(props: { runId: string; version: number }) {
  const { runId, version } = props;
  const [files, setFiles] = useState<ArtifactFile[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    getJson<{ files: ArtifactFile[] }>(`/api/runs/${encodeURIComponent(runId)}/artifacts`)
      .then((answer) => live && (setFiles(answer.files), setError(undefined)))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [runId, version]);

  return (
    <section class="artifacts" aria-label="Artifacts">
      {error ? <p class="error-text">{error}</p> : null}
      {files && files.length === 0 ? <p class="muted">The run wrote no artifact (files in its $ARTIFACTS_DIR).</p> : null}
      <ul class="artifact-list">
        {files?.map((f) => (
          <li key={f.path} class={open === f.path ? 'cursor' : ''}>
            <a href="#" class="artifact-name" onClick={(e) => (e.preventDefault(), setOpen(open === f.path ? undefined : f.path))}>
              {f.path}
            </a>{' '}
            <span class="muted">
              {size(f.size)} · {ago(f.modifiedAt)}
            </span>
          </li>
        ))}
      </ul>
      {open && files?.some((f) => f.path === open) ? <ArtifactFileView runId={runId} file={files.find((f) => f.path === open)!} /> : null}
    </section>
  );
}

function ArtifactFileView(props: { runId: string; file: ArtifactFile }) {
  const { runId, file } = props;
  const url = fileUrl(runId, file.path);
  const [shown, setShown] = useState<{ text: string } | { binary: string } | { error: string } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setShown(undefined);
    (async () => {
      const res = await fetch(url);
      if (!res.ok) throw new ApiError(res.status, ((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`);
      const type = res.headers.get('content-type') ?? 'application/octet-stream';
      if (!textTypes.test(type) || file.size > SHOW_MAX) {
        void res.body?.cancel();
        return { binary: type.split(';')[0]! };
      }
      return { text: await res.text() };
    })()
      .then((value) => live && setShown(value))
      .catch((err: Error) => live && setShown({ error: err.message }));
    return () => {
      live = false;
    };
  }, [url, file.size, file.modifiedAt]);

  const download = (
    <a href={url} download={file.path.split('/').pop()} class="artifact-download">
      Download {file.path.split('/').pop()}
    </a>
  );
  return (
    <div class="artifact-file" data-artifact={file.path}>
      <p>
        <strong>{file.path}</strong> · {download}
      </p>
      {!shown ? <p class="muted">Reading…</p> : null}
      {shown && 'error' in shown ? <p class="error-text">{shown.error}</p> : null}
      {shown && 'binary' in shown ? (
        <p class="muted">
          {file.size > SHOW_MAX ? `Too long to show here (${size(file.size)})` : `Not text (${shown.binary})`}: download it to open it.
        </p>
      ) : null}
      {shown && 'text' in shown ? <pre class="artifact-text">{shown.text}</pre> : null}
    </div>
  );
}
