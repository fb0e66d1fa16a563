import { createHash } from 'node:crypto';

/**
 * Most bytes of one file or folder name Cairn derives from a name it was given (a node path,
 * a variable name). Linux and macOS file systems refuse a name over 255 bytes (NAME_MAX) with
 * ENAMETOOLONG; a node path composed through includes and child runs can be longer than that
 * even when every node id in it is short.
 */
export const MAX_FILE_NAME_BYTES = 240;

const HASH_CHARS = 16;

/**
 * `text` as one file name: percent-encoded (so `/`, `[` and `]` of a node path stay inside one
 * name), and, when that is longer than MAX_FILE_NAME_BYTES, its start followed by `~` and a
 * hash of the whole text, which tells apart long texts that start alike. Names that fit are
 * unchanged, so folders written before keep their names.
 */
export function fileNameFor(text: string): string {
  const encoded = encodeURIComponent(text);
  if (encoded.length <= MAX_FILE_NAME_BYTES) return encoded;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);
  // Never end the kept start inside a %XX escape.
  const head = encoded.slice(0, MAX_FILE_NAME_BYTES - HASH_CHARS - 1).replace(/%[0-9A-F]?$/, '');
  return `${head}~${hash}`;
}
