import type { Output, PersistedOutput } from './schemas/node-output.js';

/** At most this many bytes of UTF-8 output text are stored in an event row. */
export const OUTPUT_PREVIEW_MAX_BYTES = 32 * 1024;

export interface OutputPreview {
  text: string;
  truncated: boolean;
  /** Byte length of the full text; set when the text was cut. */
  originalBytes?: number;
}

/**
 * The stored preview of an output text: the whole text when it fits in 32 KiB of UTF-8,
 * otherwise the longest prefix that fits and ends on a character boundary.
 */
export function previewOutput(text: string): OutputPreview {
  // A UTF-16 code unit never takes more than 3 bytes of UTF-8: short texts skip the byte count.
  if (text.length * 3 <= OUTPUT_PREVIEW_MAX_BYTES) return { text, truncated: false };
  const originalBytes = Buffer.byteLength(text, 'utf8');
  if (originalBytes <= OUTPUT_PREVIEW_MAX_BYTES) return { text, truncated: false };
  // Every code unit takes at least one byte, so the first MAX units hold at least MAX bytes.
  let head = text.slice(0, OUTPUT_PREVIEW_MAX_BYTES);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1); // never split a surrogate pair
  const bytes = Buffer.from(head, 'utf8');
  let end = Math.min(OUTPUT_PREVIEW_MAX_BYTES, bytes.length);
  // A continuation byte (10xxxxxx) at the cut means the character started before it: back up.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.toString('utf8', 0, end), truncated: true, originalBytes };
}

/** What a node produced, as the code that ran it knows it (full text, not yet cut). */
export interface OutputInput {
  text: string;
  structured?: unknown;
  declaredOutputPaths?: string[][];
  /** Where the full text was written when it was too long to store in the row. */
  spillPath?: string;
  /** Already-persisted facts (a replayed or prior output read back from a row): kept as they are. */
  persisted?: PersistedOutput;
}

/**
 * The output group of a record: the full text, plus `persisted` describing what an event row
 * stores when that differs from the full text (cut to the preview, or spilled to a file).
 */
export function buildOutput(input: OutputInput): Output {
  const output: Output = { text: input.text };
  if (input.structured !== undefined) output.structured = input.structured;
  if (input.declaredOutputPaths !== undefined) output.declaredOutputPaths = input.declaredOutputPaths;
  const persisted = input.persisted ?? persistedFacts(input.text, input.spillPath);
  if (persisted !== undefined) output.persisted = persisted;
  return output;
}

function persistedFacts(text: string, spillPath: string | undefined): PersistedOutput | undefined {
  const preview = previewOutput(text);
  if (!preview.truncated && spillPath === undefined) return undefined;
  return {
    text: preview.text,
    truncated: preview.truncated,
    originalBytes: preview.originalBytes ?? Buffer.byteLength(text, 'utf8'),
    ...(spillPath !== undefined ? { spillPath } : {}),
  };
}

/**
 * The output as an event row stores it: `text` is the stored text (the preview when cut), so a
 * row never holds more than the preview however long the output was.
 */
export function storedOutput(output: Output): Output {
  if (output.persisted !== undefined) {
    return output.text === output.persisted.text ? output : { ...output, text: output.persisted.text };
  }
  const preview = previewOutput(output.text);
  if (!preview.truncated) return output;
  return {
    ...output,
    text: preview.text,
    persisted: { text: preview.text, truncated: true, originalBytes: preview.originalBytes! },
  };
}
