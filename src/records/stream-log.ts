import { previewOutput } from './output-preview.js';
import { persistedOutputSchema, type PersistedOutput } from './schemas/node-output.js';

/**
 * An attempt's stderr as its terminal event keeps it. Stderr is not part of the execution record
 * (the contract has no field for it), so it rides next to the record as an extra of the row,
 * like `pid`: `data.stderr`, shaped as the contract's `output.persisted` (the stored preview,
 * whether it was cut, the full byte count, and the spill file holding the rest).
 */

/** The key of the event's `data` that holds the stderr facts. */
export const STDERR_DATA_KEY = 'stderr';

/** Stderr as the code that ran the attempt knows it. */
export interface StreamInput {
  /** What was captured (possibly only a head, see `capturedBytes`). */
  text: string;
  /** Where the captured text was written when it is longer than the preview. */
  spillPath?: string;
  /** Every byte the stream produced, when the capture kept only its head. */
  capturedBytes?: number;
}

/** The stored form: at most the 32 KiB preview in the row, the rest named by `spillPath`. */
export function persistedStream(input: StreamInput): PersistedOutput {
  const preview = previewOutput(input.text);
  const cut = preview.truncated || input.capturedBytes !== undefined;
  return {
    text: preview.text,
    truncated: cut,
    ...(cut ? { originalBytes: input.capturedBytes ?? preview.originalBytes! } : {}),
    ...(input.spillPath !== undefined ? { spillPath: input.spillPath } : {}),
  };
}

/** Reads the stderr facts back from an event's data; undefined when absent or malformed. */
export function readPersistedStream(data: Record<string, unknown>): PersistedOutput | undefined {
  const parsed = persistedOutputSchema.safeParse(data[STDERR_DATA_KEY]);
  return parsed.success ? parsed.data : undefined;
}
