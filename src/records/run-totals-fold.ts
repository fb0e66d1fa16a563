import type { NewRunEvent } from '../store/schemas/event.js';
import { statusOfEventType } from './event-types.js';
import { spendSchema } from './schemas/node-spend.js';
import { accountingSchema } from './schemas/execution-record.js';
import type { UsageObservation } from './read-node-event.js';

/**
 * The spend one node event adds to its run's totals (what nodeEventOf sets as its
 * `adds_to_totals`, for the store to fold in: store/rules/run-totals.ts), or undefined when it adds nothing to count:
 * a row of the node's own spend (`accounting: node`) that consumed something (completed,
 * failed, suspended), as computeRunTotals counts them. Roll-ups and instance totals restate
 * rows counted already; cache records add no spend. Only the `spend` and `accounting` groups are
 * read (the record was validated when it was built).
 */
export function countedUsageOf(event: Pick<NewRunEvent, 'event_type' | 'step_name' | 'data'>): UsageObservation | undefined {
  if (event.step_name === null) return undefined;
  const status = statusOfEventType(event.event_type);
  if (status !== 'completed' && status !== 'failed' && status !== 'suspended') return undefined;
  const execution = event.data.execution as { accounting?: unknown; spend?: unknown } | undefined;
  if (execution === undefined || accountingSchema.safeParse(execution.accounting).data !== 'node') return undefined;
  const spend = spendSchema.safeParse(execution.spend);
  if (!spend.success) return {};
  const { tokens, costUsd } = spend.data;
  const usage: UsageObservation = {};
  if (tokens.source === 'provider') usage.tokens = tokens.value;
  else if (tokens.reason === 'incomplete') usage.tokensIncomplete = true;
  if (costUsd.source === 'provider') {
    usage.costUsd = costUsd.value;
    if (costUsd.partial === true) usage.costPartial = true;
  }
  return usage;
}
