import type { SpendObservations } from '../../records/spend.js';
import type { ChatCompletionSeen } from './http-relay.js';

/**
 * Tokens of a turn as a Chat Completions server reported them (the usage chunk of each streamed
 * answer, which the relay copied), summed over the turn's calls. A CLI's own counts fill what the
 * server never sent with 0, so they are not believed: no answer with usage leaves tokens out
 * (`not_reported`), some without it make them `incomplete`, and a cached count is kept only when
 * every answer sent one. Input is `prompt_tokens`, which includes the cached part.
 */
export function chatWireTokens(answers: readonly ChatCompletionSeen[]): Pick<SpendObservations, 'tokens' | 'tokensUnknown'> {
  if (answers.length === 0) return {};
  const reported = answers.map((a) => a.usage).filter((u): u is Record<string, unknown> => u !== null);
  if (reported.length === 0) return { tokens: undefined };
  if (reported.length < answers.length) return { tokensUnknown: true };
  const sum = (read: (u: any) => unknown): number | undefined => {
    let total = 0;
    for (const u of reported) {
      const v = read(u);
      if (typeof v !== 'number') return undefined;
      total += v;
    }
    return total;
  };
  const input = sum((u) => u.prompt_tokens);
  const output = sum((u) => u.completion_tokens);
  const cacheRead = sum((u) => u.prompt_tokens_details?.cached_tokens);
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
