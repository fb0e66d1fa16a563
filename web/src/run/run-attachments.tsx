import { size } from '../format.js';
import type { Run } from '../types.js';

/** One file the run was started with, as `metadata.attachments` lists it. */
interface Attachment {
  name: string;
  original_name: string;
  size: number;
}

function attachmentsOf(run: Run): Attachment[] {
  const listed = run.metadata.attachments;
  if (!Array.isArray(listed)) return [];
  return listed.filter((a): a is Attachment => typeof a?.name === 'string' && typeof a?.size === 'number');
}

/**
 * The files the run was started with (a multipart run request), from the run's
 * `metadata.attachments`: each by the name Cairn gave it in the run's `$ATTACHMENTS_DIR`
 * (`$ARTIFACTS_DIR/attachments/`), the name it was sent under when that differs, and its size.
 */
export function RunAttachments({ run }: { run: Run }) {
  const files = attachmentsOf(run);
  if (files.length === 0) return null;
  return (
    <div class="run-attachments" data-run-attachments>
      Attachments (<code>$ATTACHMENTS_DIR</code>):
      <ul class="attachment-list">
        {files.map((f) => (
          <li key={f.name} data-run-attachment={f.name}>
            <code>{f.name}</code>
            {f.original_name !== f.name ? <span class="muted"> (sent as {f.original_name})</span> : null} <span class="muted">{size(f.size)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
