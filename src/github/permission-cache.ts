/**
 * Answers kept for a short while, so that a burst of comments asks GitHub once: a user's
 * permission on a repository (a minute: a removed collaborator loses the right to start runs that
 * soon), the token's own login (ten minutes). Keys name the API and the token's hook, so two hooks
 * with different tokens never share an answer. Failures are not kept.
 */
export const PERMISSION_TTL_MS = 60_000;
export const LOGIN_TTL_MS = 600_000;
/** A commenter without write access is replied to at most once per issue in this while. */
export const REPLY_QUIET_MS = 3600_000;

export class TimedCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 1000,
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.now()) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    return value;
  }
}

/** Keys seen within a while: `firstIn` answers true once per key per `ttlMs`. */
export class QuietPeriod {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 1000,
  ) {}

  firstIn(key: string): boolean {
    const until = this.seen.get(key);
    if (until !== undefined && until > this.now()) return false;
    if (this.seen.size >= this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, this.now() + this.ttlMs);
    return true;
  }
}
