import { ProviderRates } from './provider-rates.js';

/**
 * Per-provider limits (`concurrency.providers.<id>` in config), shared by every run of the
 * supervisor, on top of the global and per-run limits. A node takes its provider's slot before
 * it asks for a global one and gives it back when its attempt has ended, so "a limit of 2" means
 * two calls of that provider in flight, never three. Nodes waiting for a slot wait in line, in
 * the order they first asked, and hold no other slot: each run's scheduler parks them and is
 * woken when a slot frees.
 */

export interface ProviderSlotStats {
  active: number;
  queued: number;
  /** Absent when the provider has no limit. */
  limit?: number;
}

/**
 * How many places at the head of each provider's line have their position kept current: a
 * waiter among them is woken (and its run records its new place) whenever the line moves. Those
 * further back keep the position recorded when they started waiting until they come this near,
 * so a 1000-node fan-out writes at most 1 + QUEUE_POSITIONS_SHOWN `provider_queued` events per
 * node, never one per node for every slot released.
 */
export const QUEUE_POSITIONS_SHOWN = 10;

export type SlotAnswer = { acquired: true } | { acquired: false; position: number; newlyQueued: boolean };

interface Waiter {
  key: object;
  wake: () => void;
}

export class ProviderSlots {
  private readonly active = new Map<string, number>();
  private readonly lines = new Map<string, Waiter[]>();
  /** One timer per provider held back by its rate budget: it wakes the line when the minute frees room. */
  private readonly rateTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly limits: Readonly<Record<string, number>> = {},
    private readonly rates: ProviderRates = new ProviderRates(),
  ) {}

  limitOf(provider: string): number | undefined {
    return this.limits[provider];
  }

  /**
   * Takes a slot for `key` (a node) if one is free and nobody is ahead of it in line; otherwise
   * puts it in line (once) and answers its position, 1 being next. `wake` is called when a
   * slot may have freed for it.
   */
  tryAcquire(provider: string, key: object, wake: () => void): SlotAnswer {
    const limit = this.limits[provider];
    const active = this.active.get(provider) ?? 0;
    const line = this.lines.get(provider) ?? [];
    const index = line.findIndex((w) => w.key === key);
    // Those ahead in line keep the slots they are about to take: a free slot goes to the first.
    const ahead = index >= 0 ? index : line.length;
    const room = Math.min(limit === undefined ? Infinity : limit - active, this.rates.room(provider));
    if (ahead < room) {
      if (index >= 0) line.splice(index, 1);
      this.active.set(provider, active + 1);
      this.rates.started(provider);
      return { acquired: true };
    }
    this.armRateTimer(provider);
    if (index >= 0) return { acquired: false, position: index + 1, newlyQueued: false };
    line.push({ key, wake });
    this.lines.set(provider, line);
    return { acquired: false, position: line.length, newlyQueued: true };
  }

  /** Gives a slot back (with the tokens its call reported, for a TPM budget) and wakes the waiters that may now take one. */
  release(provider: string, tokens?: number): void {
    this.rates.used(provider, tokens);
    const active = Math.max(0, (this.active.get(provider) ?? 1) - 1);
    this.active.set(provider, active);
    const limit = this.limits[provider];
    const line = this.lines.get(provider) ?? [];
    const free = limit === undefined ? line.length : limit - active;
    // Those who may take the slot, and those whose shown place moves up.
    for (const waiter of line.slice(0, Math.max(0, free) + QUEUE_POSITIONS_SHOWN)) waiter.wake();
  }

  /** `key`'s place in its provider's line (1 being next), or undefined when it is not in line. */
  positionOf(provider: string, key: object): number | undefined {
    const index = this.lines.get(provider)?.findIndex((w) => w.key === key) ?? -1;
    return index >= 0 ? index + 1 : undefined;
  }

  /** Takes `key` out of line (its run stopped, or it was dropped). */
  forget(provider: string, key: object): void {
    const line = this.lines.get(provider);
    if (!line) return;
    const index = line.findIndex((w) => w.key === key);
    if (index < 0) return;
    line.splice(index, 1);
    // Those behind it within the shown places moved up (the new head among them, which may now
    // take a slot the one that left was held back from).
    for (const waiter of line.slice(index, QUEUE_POSITIONS_SHOWN)) waiter.wake();
  }

  /** When the rate budget holds `provider` back, wakes the head of its line once the minute has room. */
  private armRateTimer(provider: string): void {
    if (this.rateTimers.has(provider)) return;
    const ms = this.rates.msUntilRoom(provider);
    if (ms === undefined) return;
    const timer = setTimeout(() => {
      this.rateTimers.delete(provider);
      for (const waiter of (this.lines.get(provider) ?? []).slice(0, 1 + QUEUE_POSITIONS_SHOWN)) waiter.wake();
    }, ms);
    timer.unref();
    this.rateTimers.set(provider, timer);
  }

  /** Live figures per provider that has had a call or a limit (for the heartbeat and /api/health). */
  stats(): Record<string, ProviderSlotStats> {
    const out: Record<string, ProviderSlotStats> = {};
    const providers = new Set([...Object.keys(this.limits), ...this.active.keys(), ...this.lines.keys()]);
    for (const provider of providers) {
      const limit = this.limits[provider];
      out[provider] = {
        active: this.active.get(provider) ?? 0,
        queued: this.lines.get(provider)?.length ?? 0,
        ...(limit !== undefined ? { limit } : {}),
      };
    }
    return out;
  }
}
