import type { SpendObservations } from '../../../records/spend.js';

/** Where a usage object of one wire format keeps each count (the Responses and Chat Completions APIs name them differently). */
export interface UsageFields {
  input: string;
  output: string;
  /** The object under which the cached input count sits, as `cached_tokens`. */
  inputDetails: string;
}

export const responsesUsageFields: UsageFields = { input: 'input_tokens', output: 'output_tokens', inputDetails: 'input_tokens_details' };
export const chatUsageFields: UsageFields = { input: 'prompt_tokens', output: 'completion_tokens', inputDetails: 'prompt_tokens_details' };

/**
 * Tokens of a turn as the server reported them (the relay's copy of each call's usage; `null`
 * for a call that sent none), summed over the turn's calls. A vendor CLI's own counts fill what
 * the server never sent with 0, so they are not believed: no call with usage leaves tokens out
 * (`not_reported`), some without it make them `incomplete`, and a cached or total count is kept
 * only when every call sent one. Input includes the cached part.
 */
export function wireTokens(
  usages: readonly (Record<string, unknown> | null)[],
  fields: UsageFields,
): Pick<SpendObservations, 'tokens' | 'tokensUnknown'> {
  if (usages.length === 0) return {};
  const reported = usages.filter((u): u is Record<string, unknown> => u !== null);
  if (reported.length === 0) return { tokens: undefined };
  if (reported.length < usages.length) return { tokensUnknown: true };
  const sum = (read: (u: Record<string, unknown>) => unknown): number | undefined => {
    let total = 0;
    for (const u of reported) {
      const v = read(u);
      if (typeof v !== 'number') return undefined;
      total += v;
    }
    return total;
  };
  const input = sum((u) => u[fields.input]);
  const output = sum((u) => u[fields.output]);
  const cacheRead = sum((u) => (u[fields.inputDetails] as Record<string, unknown> | undefined)?.cached_tokens);
  const total = sum((u) => u.total_tokens);
  return {
    tokens: {
      input,
      output,
      ...(cacheRead !== undefined ? { cacheRead } : {}),
      ...(total !== undefined ? { total } : {}),
    },
  };
}
