/**
 * File names for attachments, chosen by Cairn: the client's name is only a hint. The result is
 * one plain path segment (no `/`, `\`, NUL or control character), never a dotfile (so never `.`,
 * `..` or `.env`), at most 100 characters with its extension kept, and unique within the run.
 */

const MAX_NAME = 100;
const MAX_EXTENSION = 16;

/** The client's name as recorded: control characters removed, cut to 255 characters. */
export function originalName(name: string | undefined): string {
  return withoutControls(name).slice(0, 255);
}

function withoutControls(name: string | undefined): string {
  return (name ?? '').replace(/[\u0000-\u001f\u007f]/g, '');
}

function cut(base: string, extension: string): string {
  return base.slice(0, MAX_NAME - extension.length) + extension;
}

/** A safe, unique file name for `name`; `taken` holds the names used so far and gets this one. */
export function attachmentName(name: string | undefined, taken: Set<string>): string {
  const last = withoutControls(name).split(/[\\/]/).pop() ?? '';
  let clean = last
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._ +-]/gu, '_')
    .replace(/^[.\s_-]+/, '')
    .trim();
  if (clean === '') clean = 'attachment';
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= MAX_EXTENSION ? clean.slice(dot) : '';
  const base = extension ? clean.slice(0, dot) : clean;
  let candidate = cut(base, extension);
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = cut(base, `-${n}${extension}`);
  taken.add(candidate.toLowerCase());
  return candidate;
}
