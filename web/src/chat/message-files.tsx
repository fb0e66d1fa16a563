import { size } from '../format.js';
import type { Message } from './types.js';

interface StoredFile {
  name: string;
  size: number;
}

/** The files a message was sent with, as the server stored them (`metadata.files`: name, mimeType, size). */
export function messageFiles(message: Message): StoredFile[] {
  try {
    const files = (JSON.parse(message.metadata) as { files?: unknown }).files;
    if (!Array.isArray(files)) return [];
    return files.filter((f): f is StoredFile => typeof f?.name === 'string' && typeof f?.size === 'number');
  } catch {
    return [];
  }
}

/** The names (as the server made them safe) and sizes of a message's files, when it has any. */
export function MessageFiles({ message }: { message: Message }) {
  const files = messageFiles(message);
  if (files.length === 0) return null;
  return (
    <ul class="message-files" data-message-files>
      {files.map((f) => (
        <li key={f.name} data-message-file={f.name}>
          {f.name} <span class="muted">{size(f.size)}</span>
        </li>
      ))}
    </ul>
  );
}
