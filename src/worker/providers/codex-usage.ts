import type { SpendObservations } from '../../records/spend.js';

/**
 * Tokens as the server reported them, summed over the turn's responses (a turn with tool calls
 * makes several). Codex's own `turn.completed` usage fills a count the server never sent with
 * 0, so the relay's copy of each `response.completed` usage is the one believed: no response
 * with usage leaves tokens out (`not_reported`), some without it make them `incomplete`, and a
 * cached count is kept only when every response sent one. Input includes the cached part.
 */
export function wireTokens(usages: readonly (Record<string, unknown> | null)[]): Pick<SpendObservations, 'tokens' | 'tokensUnknown'> {
  if (usages.length === 0) return {};
  const reported = usages.filter((u): u is Record<string, unknown> => u !== null);
  if (reported.length === 0) return { tokens: undefined };
  if (reported.length < usages.length) return { tokensUnknown: true };
  const sum = (read: (u: any) => unknown): number | undefined => {
    let total = 0;
    for (const u of reported) {
      const v = read(u);
      if (typeof v !== 'number') return undefined;
      total += v;
    }
    return total;
  };
  const input = sum((u) => u.input_tokens);
  const output = sum((u) => u.output_tokens);
  const cacheRead = sum((u) => u.input_tokens_details?.cached_tokens);
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
