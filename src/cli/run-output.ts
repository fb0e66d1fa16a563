import type { RunEventView } from '../wire/runs.js';
import type { ApiClient } from './api-client.js';
import { writeLine, type OutputStream } from '../terminal/context.js';
import type { Style } from '../terminal/format.js';
import { readRunDetailPages } from './run-detail-pages.js';

export const outputModes = ['last', 'all', 'none'] as const;
export type OutputMode = (typeof outputModes)[number];

/** At most this many lines of one node's output are printed; the rest is counted. */
const MAX_LINES = 40;

/**
 * The `node_completed` events whose output `mode` prints, in completion order: the one that
 * completed last (`last`, usually the run's summary or report node), every one (`all`), or none.
 * Reads every page of the run's events but keeps only those.
 */
export async function readRunOutputs(client: ApiClient, runId: string, mode: OutputMode): Promise<RunEventView[]> {
  if (mode === 'none') return [];
  let chosen: RunEventView[] = [];
  for await (const page of readRunDetailPages(client, runId)) {
    const completed = page.body.events.filter((e) => e.event_type === 'node_completed' && e.step_name);
    chosen = mode === 'all' ? [...chosen, ...completed] : completed.length > 0 ? completed.slice(-1) : chosen;
  }
  return chosen;
}

/** Prints the stored output previews (at most 32 KiB each) of `events`, 40 lines each. */
export function printRunOutputs(out: OutputStream, runId: string, events: readonly RunEventView[], style: Style): void {
  for (const event of events) {
    const text = typeof event.data.node_output === 'string' ? event.data.node_output : '';
    if (text === '') continue;
    writeLine(out, style.bold(`Output of ${event.step_name}:`));
    const lines = text.split('\n');
    for (const line of lines.slice(0, MAX_LINES)) writeLine(out, `  ${line}`);
    if (lines.length > MAX_LINES) writeLine(out, style.dim(`  … ${lines.length - MAX_LINES} more lines (cairn run get ${runId} --events)`));
  }
}
