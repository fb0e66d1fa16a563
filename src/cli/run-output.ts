import type { RunDetailResponse } from './api-schemas.js';
import { writeLine, type OutputStream } from './context.js';
import type { Style } from './format.js';

export const outputModes = ['last', 'all', 'none'] as const;
export type OutputMode = (typeof outputModes)[number];

/** At most this many lines of one node's output are printed; the rest is counted. */
const MAX_LINES = 40;

/**
 * Prints what a finished run produced: the output of the node that completed last (`last`,
 * usually the run's summary or report node), of every completed node in completion order
 * (`all`), or nothing. Outputs are the stored previews (at most 32 KiB each).
 */
export function printRunOutputs(out: OutputStream, detail: RunDetailResponse, mode: OutputMode, style: Style): void {
  if (mode === 'none') return;
  const completed = detail.events.filter((e) => e.event_type === 'node_completed' && e.step_name);
  const chosen = mode === 'all' ? completed : completed.slice(-1);
  for (const event of chosen) {
    const text = typeof event.data?.node_output === 'string' ? event.data.node_output : '';
    if (text === '') continue;
    writeLine(out, style.bold(`Output of ${event.step_name}:`));
    const lines = text.split('\n');
    for (const line of lines.slice(0, MAX_LINES)) writeLine(out, `  ${line}`);
    if (lines.length > MAX_LINES) writeLine(out, style.dim(`  … ${lines.length - MAX_LINES} more lines (cairn run get ${detail.run.id} --events)`));
  }
}
