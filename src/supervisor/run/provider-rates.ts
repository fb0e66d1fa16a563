/**
 * Requests-per-minute and tokens-per-minute budgets per provider (`concurrency.requestsPerMinute`
 * and `concurrency.tokensPerMinute` in config), over a sliding minute: a provider with an RPM
 * budget starts at most that many calls in any 60 s; one with a TPM budget starts none while the
 * tokens its calls reported in the last 60 s reach it. ProviderSlots asks it before handing out
 * a slot, so a node held back waits in its provider's line like one waiting for a slot (holding
 * nothing, its position shown), and is woken when the minute frees room.
 */

export const RATE_WINDOW_MS = 60_000;

export interface ProviderRateBudget {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

interface Mark {
  at: number;
  n: number;
}

export class ProviderRates {
  private readonly starts = new Map<string, number[]>();
  private readonly tokens = new Map<string, Mark[]>();

  constructor(
    private readonly budgets: Readonly<Record<string, ProviderRateBudget>> = {},
    private readonly now: () => number = Date.now,
  ) {}

  budgetOf(provider: string): ProviderRateBudget | undefined {
    return this.budgets[provider];
  }

  /** How many more calls of `provider` may start now (Infinity without a budget). */
  room(provider: string): number {
    const budget = this.budgets[provider];
    if (!budget) return Infinity;
    this.prune(provider);
    const byRequests = budget.requestsPerMinute === undefined ? Infinity : budget.requestsPerMinute - (this.starts.get(provider)?.length ?? 0);
    const byTokens = budget.tokensPerMinute === undefined || this.tokensUsed(provider) < budget.tokensPerMinute ? Infinity : 0;
    return Math.max(0, Math.min(byRequests, byTokens));
  }

  /** A call of `provider` started. */
  started(provider: string): void {
    if (this.budgets[provider]?.requestsPerMinute === undefined) return;
    const list = this.starts.get(provider) ?? [];
    list.push(this.now());
    this.starts.set(provider, list);
  }

  /** A call of `provider` ended having used `tokens` (as its provider reported them). */
  used(provider: string, tokens: number | undefined): void {
    if (this.budgets[provider]?.tokensPerMinute === undefined || tokens === undefined || !(tokens > 0)) return;
    const list = this.tokens.get(provider) ?? [];
    list.push({ at: this.now(), n: tokens });
    this.tokens.set(provider, list);
  }

  /** Milliseconds until `provider` has room again, when it has none now; undefined when it has room. */
  msUntilRoom(provider: string): number | undefined {
    if (this.room(provider) > 0) return undefined;
    const budget = this.budgets[provider]!;
    const now = this.now();
    const moments: number[] = [];
    const starts = this.starts.get(provider) ?? [];
    if (budget.requestsPerMinute !== undefined && starts.length >= budget.requestsPerMinute) {
      // Room comes when enough of the oldest starts leave the window.
      moments.push(starts[starts.length - budget.requestsPerMinute]! + RATE_WINDOW_MS);
    }
    if (budget.tokensPerMinute !== undefined) {
      let used = this.tokensUsed(provider);
      for (const mark of this.tokens.get(provider) ?? []) {
        if (used < budget.tokensPerMinute) break;
        used -= mark.n;
        if (used < budget.tokensPerMinute) moments.push(mark.at + RATE_WINDOW_MS);
      }
    }
    return Math.max(1, Math.max(...moments) - now);
  }

  private tokensUsed(provider: string): number {
    return (this.tokens.get(provider) ?? []).reduce((sum, mark) => sum + mark.n, 0);
  }

  private prune(provider: string): void {
    const edge = this.now() - RATE_WINDOW_MS;
    const starts = this.starts.get(provider);
    if (starts) while (starts.length > 0 && starts[0]! <= edge) starts.shift();
    const tokens = this.tokens.get(provider);
    if (tokens) while (tokens.length > 0 && tokens[0]!.at <= edge) tokens.shift();
  }
}
