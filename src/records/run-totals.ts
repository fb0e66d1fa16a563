import type { CairnError } from '../shared/errors.js';
import type { RunEvent } from '../store/schemas/event.js';
import type { RunTotals } from '../store/schemas/run-usage.js';
import { readNodeEvent, type NodeRow } from './read-node-event.js';
import { countedContributions, sumUsage, toRunTotals } from './usage.js';

export interface RunTotalsOptions {
  /** Called for a row whose modern metadata is invalid; the row is left out of the totals. */
  onUnreadable?: (event: RunEvent, error: CairnError) => void;
}

/**
 * Run-level usage totals over a run's events, as kept in the run's metadata. Keys are absent
 * when nothing was reported; aggregate rows are never added to the rows they restate.
 */
export function computeRunTotals(events: readonly RunEvent[], options: RunTotalsOptions = {}): RunTotals {
  const rows: NodeRow[] = [];
  for (const event of events) {
    try {
      const row = readNodeEvent(event);
      if (row !== undefined) rows.push(row);
    } catch (err) {
      if (options.onUnreadable === undefined) throw err;
      options.onUnreadable(event, err as CairnError);
    }
  }
  return toRunTotals(sumUsage(countedContributions(rows).map((c) => c.usage)));
}
