import type { TokenUsage } from './schemas/node-spend.js';
import { isAmount, observedTokens, type SpendObservations } from './spend.js';

/**
 * The spend of one attempt that called its provider more than once (a best-effort provider asked
 * again for its structured answer): the observations of the calls that reached the provider, as
 * one. Accounting rules 1 and 2 hold for the sum: nothing is estimated, and a value one paid call
 * did not report never reads as complete:
 * - tokens: summed; a call that reported none makes them `incomplete` (`tokensUnknown`), one
 *   that reported a cache axis the others lacked makes that axis a floor (`cachePartial`);
 * - cost: summed; a call that reported none makes the sum partial (`costPartial`);
 * - turns: summed when every call reported them, else not reported;
 * - stop reason: the last call's (the attempt ended there).
 * A malformed observation is passed on as it came, so the record says `invalid`.
 */
export function sumObservations(calls: readonly SpendObservations[]): SpendObservations {
  if (calls.length <= 1) return calls[0] ?? {};
  const last = calls[calls.length - 1]!;
  return {
    ...sumTokens(calls),
    ...sumCost(calls),
    ...sumTurns(calls),
    ...(last.stopReason !== undefined ? { stopReason: last.stopReason } : {}),
  };
}

function sumTokens(calls: readonly SpendObservations[]): Pick<SpendObservations, 'tokens' | 'tokensUnknown'> {
  const unknown = calls.some((c) => c.tokensUnknown === true);
  const reported = calls.filter((c) => c.tokens !== undefined);
  if (reported.length === 0) return unknown ? { tokensUnknown: true } : {};
  const flagUnknown = unknown || reported.length < calls.length ? { tokensUnknown: true as const } : {};
  const usages: TokenUsage[] = [];
  for (const call of reported) {
    const usage = observedTokens(call.tokens);
    if (usage === undefined) return { tokens: call.tokens, ...flagUnknown };
    usages.push(usage);
  }
  const sum = (axis: 'cacheRead' | 'cacheWrite' | 'total' | 'cost') => {
    const values = usages.map((u) => u[axis]).filter((v): v is number => v !== undefined);
    return { count: values.length, value: values.reduce((a, b) => a + b, 0) };
  };
  const cacheRead = sum('cacheRead');
  const cacheWrite = sum('cacheWrite');
  const total = sum('total');
  const cost = sum('cost');
  const anyCache = cacheRead.count > 0 || cacheWrite.count > 0;
  const cacheFloor =
    usages.some((u) => u.cachePartial === true) ||
    (cacheRead.count > 0 && cacheRead.count < usages.length) ||
    (cacheWrite.count > 0 && cacheWrite.count < usages.length);
  const tokens: TokenUsage = {
    input: usages.reduce((a, u) => a + u.input, 0),
    output: usages.reduce((a, u) => a + u.output, 0),
    ...(cacheRead.count > 0 ? { cacheRead: cacheRead.value } : {}),
    ...(cacheWrite.count > 0 ? { cacheWrite: cacheWrite.value } : {}),
    // A total or a cost that some call did not state is left out rather than understated.
    ...(total.count === usages.length ? { total: total.value } : {}),
    ...(cost.count === usages.length ? { cost: cost.value } : {}),
    ...(anyCache && cacheFloor ? { cachePartial: true as const } : {}),
  };
  return { tokens, ...flagUnknown };
}

function sumCost(calls: readonly SpendObservations[]): Pick<SpendObservations, 'costUsd' | 'costPartial'> {
  const reported = calls.filter((c) => c.costUsd !== undefined);
  if (reported.length === 0) return {};
  const invalid = reported.find((c) => !isAmount(c.costUsd));
  if (invalid) return { costUsd: invalid.costUsd };
  const partial = reported.length < calls.length || reported.some((c) => c.costPartial === true);
  return { costUsd: reported.reduce((a, c) => a + (c.costUsd as number), 0), ...(partial ? { costPartial: true } : {}) };
}

function sumTurns(calls: readonly SpendObservations[]): Pick<SpendObservations, 'numTurns'> {
  const invalid = calls.find((c) => c.numTurns !== undefined && !isAmount(c.numTurns));
  if (invalid) return { numTurns: invalid.numTurns };
  if (!calls.every((c) => c.numTurns !== undefined)) return {};
  return { numTurns: calls.reduce((a, c) => a + (c.numTurns as number), 0) };
}
