import { useState } from 'preact/hooks';
import { size } from '../format.js';
import { attachmentProblem, MAX_ATTACHMENTS, type UploadKind } from './attachment-limits.js';

export interface AttachmentPickerProps {
  files: readonly File[];
  onChange(files: File[]): void;
  kind: UploadKind;
  disabled?: boolean;
}

/**
 * Files to send with a request: a file field (several at once, added to those already chosen),
 * each chosen file by name and size with a button to remove it. A choice that would pass the
 * API's limits is refused here, with the API's own text, and nothing of it is added.
 */
export function AttachmentPicker(props: AttachmentPickerProps) {
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const add = (input: HTMLInputElement) => {
    const picked = [...(input.files ?? [])];
    // Emptied, so that choosing the same file again after removing it is a change.
    input.value = '';
    if (picked.length === 0) return;
    const next = [...props.files, ...picked];
    const problem = attachmentProblem(next, props.kind);
    setRefusal(problem);
    if (problem === undefined) props.onChange(next);
  };
  return (
    <div class="attachments" data-attachments>
      <label class="inline-label">
        Attach files <span class="muted">(up to {MAX_ATTACHMENTS}, 10 MB each)</span>
        <input type="file" name="files" multiple disabled={props.disabled} onChange={(e) => add(e.target as HTMLInputElement)} />
      </label>
      {props.files.length > 0 ? (
        <ul class="attachment-list">
          {props.files.map((file, i) => (
            <li key={`${i}-${file.name}`} data-attachment={file.name}>
              <span>{file.name}</span> <span class="muted">{size(file.size)}</span>{' '}
              <button
                type="button"
                class="btn btn-small"
                data-action="remove-attachment"
                aria-label={`Remove ${file.name}`}
                disabled={props.disabled}
                onClick={() => {
                  setRefusal(undefined);
                  props.onChange(props.files.filter((_, j) => j !== i));
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {refusal ? (
        <p class="error-text" data-attachment-refusal>
          {refusal}
        </p>
      ) : null}
    </div>
  );
}

