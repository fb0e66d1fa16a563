import { open } from 'node:fs/promises';
import { CairnError } from '../../shared/errors.js';

/**
 * A chunk of one stream of an attempt (`GET …/logs/{seq}/{stream}`): `limit` bytes from
 * `offset`, never ending inside a UTF-8 character (a cut one starts the next chunk). With
 * `align: 'line'` the chunk starts at the first line that begins at or after `offset` (offset 0
 * always does), so a reader can open a long log anywhere (its end, say) without a cut line and
 * knows the byte it starts at (`offset` in the answer); when no line begins within the window,
 * it starts at the first whole character instead.
 */

export interface LogChunk {
  text: string;
  offset: number;
  nextOffset: number | null;
  totalBytes: number;
}

/** At most this many bytes a UTF-8 character has beyond its first. */
const CHAR_TAIL = 3;

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** The bytes of `source` from `from`, at most `length` of them, and the source's size. */
async function readBytes(source: Buffer | string, from: number, length: number): Promise<{ buf: Buffer; total: number }> {
  if (typeof source !== 'string') return { buf: source.subarray(from, from + length), total: source.length };
  const handle = await open(source, 'r').catch(() => {
    throw new CairnError('RUN_NOT_FOUND', 'The spill file of this stream is gone (the run’s artifacts were removed)');
  });
  try {
    const total = (await handle.stat()).size;
    const buf = Buffer.alloc(Math.max(0, Math.min(length, total - from)));
    await handle.read(buf, 0, buf.length, from);
    return { buf, total };
  } finally {
    await handle.close();
  }
}

/** Where an aligned chunk starts: after the first newline at or after `offset - 1`, else the first whole character. */
function lineStart(window: Buffer, windowStart: number, offset: number): number {
  const newline = window.indexOf(0x0a);
  if (newline !== -1) return windowStart + newline + 1;
  let skip = offset - windowStart;
  while (skip < window.length && isContinuation(window[skip]!)) skip++;
  return windowStart + skip;
}

export async function readLogChunk(source: Buffer | string, offset: number, limit: number, align?: 'line'): Promise<LogChunk> {
  let start = offset;
  if (align === 'line' && offset > 0) {
    // The byte before `offset` says whether a line begins there; the window is as long as a chunk.
    const { buf } = await readBytes(source, offset - 1, limit + 1);
    start = lineStart(buf, offset - 1, offset);
  }
  const { buf, total } = await readBytes(source, start, limit + CHAR_TAIL);
  let end = Math.min(limit, buf.length);
  while (end > 0 && end < buf.length && isContinuation(buf[end]!)) end--;
  const next = start + end;
  return { text: buf.toString('utf8', 0, end), offset: Math.min(start, total), nextOffset: next < total ? next : null, totalBytes: total };
}
