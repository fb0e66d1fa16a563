/**
 * The one concurrency primitive of the engine: slots counted per key, each key with its limit,
 * and a first-come, first-served line per key. The global limit, each run's own limit and the
 * per-provider limits are each a `Slots` (their keys: one for the global and the run's, one per
 * provider); in-run fan-out instances take theirs from the same ones as the scheduler's nodes.
 *
 * A request names a set of keys and gets a slot of every one of them at once, or none. A request
 * may take a slot of key K when fewer requests are ahead of it in K's line than K has room: those
 * ahead keep the slots they are about to take, so nobody jumps the line. Two ways to wait:
 * - `acquire` resolves when the slot is taken (a fan-out instance, an attempt's global slot), and
 *   tells its `onWait` the place it waits at each time it is refused (when it joins the line,
 *   and each time it is woken without taking the slot);
 * - `tryAcquire` with a ticket answers at once, and when it cannot take the slot leaves the
 *   ticket in line and calls its `wake` whenever a slot may have freed for it (or its place in
 *   line moved), for the caller to ask again (a scheduler's pass, which must still check its
 *   run's budget and limit before it takes anything).
 * Every slot taken is given back through its `SlotHold`, whose release is idempotent.
 */

export interface SlotsOptions {
  /** The limit of `key`; undefined: no limit. */
  limitOf: (key: string) => number | undefined;
  /**
   * What else holds a key back for now (a provider's rate budget): its room, when a slot is taken
   * (`took`), and when room comes back by itself (the line is then woken).
   */
  budget?: SlotBudget;
  /**
   * How many places behind those that may take a freed slot are woken too when a line moves:
   * waiters that show their place in line (a provider's) learn that it changed. 0 by default.
   */
  alsoWake?: number;
  /** Keys reported by `stats` even before they are used (those with a configured limit). */
  knownKeys?: readonly string[];
}

export interface SlotBudget {
  room(key: string): number;
  took(key: string): void;
  /** A slot of `key` was given back, having used `amount` (a call's tokens) when its holder said. */
  gaveBack(key: string, amount: number | undefined): void;
  /** Milliseconds until `key` has room again, when the budget holds it back now; undefined otherwise. */
  msUntilRoom(key: string): number | undefined;
}

/** A slot of every key of a request, given back once however often `release` is called. */
export interface SlotHold {
  readonly keys: readonly string[];
  /** `used`: what the slot's work used of the keys' budget (a provider call's tokens). */
  release(used?: number): void;
}

/** Live figures of one key (the heartbeat and /api/health). */
export interface SlotStats {
  active: number;
  queued: number;
  /** Absent when the key has no limit. */
  limit?: number;
}

export type SlotAnswer =
  | { acquired: true; hold: SlotHold }
  | { acquired: false; position: number; newlyQueued: boolean };

/** Told a waiting request's place in line (1 being next), and whether it has just joined it. */
export type WaitListener = (position: number, newlyQueued: boolean) => void;

interface Waiter {
  readonly keys: readonly string[];
  wake: () => void;
}

/** A line of waiters with O(1) push and removal at its head (a 10,000-instance fan-out waits in one). */
class Line {
  private items: (Waiter | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(waiter: Waiter): void {
    this.items.push(waiter);
  }

  /** Index of `waiter` from the head, or -1. */
  indexOf(waiter: Waiter): number {
    if (this.items[this.head] === waiter) return 0;
    const index = this.items.indexOf(waiter, this.head);
    return index < 0 ? -1 : index - this.head;
  }

  remove(index: number): void {
    if (index === 0) {
      this.items[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
    } else {
      this.items.splice(this.head + index, 1);
    }
  }

  /** The waiters at places [from, to), a copy: waking one may change the line. */
  slice(from: number, to: number): Waiter[] {
    return this.items.slice(this.head + from, this.head + Math.max(from, to)) as Waiter[];
  }
}

export class Slots {
  private readonly held = new Map<string, number>();
  private readonly lines = new Map<string, Line>();
  /** Waiters by ticket (tryAcquire's caller's object, or a blocking request's own). */
  private readonly waiters = new Map<object, Waiter>();
  /** One timer per key held back by its budget: it wakes the line when room comes back. */
  private readonly budgetTimers = new Map<string, NodeJS.Timeout>();
  /**
   * Blocking requests waiting under each abort signal, with the one listener this holds on it: a
   * listener per request would make a long line quadratic (a signal's listeners are a list).
   */
  private readonly underSignal = new Map<AbortSignal, { waiting: Set<() => void>; listener: () => void }>();

  /** Called when a release leaves room that nobody waiting in line took (a scheduler's next pass). */
  onFree: () => void = () => {};

  constructor(private readonly opts: SlotsOptions) {}

  limitOf(key: string): number | undefined {
    return this.opts.limitOf(key);
  }

  /** Slots of `key` held now. */
  holders(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Requests waiting in `key`'s line. */
  waiting(key: string): number {
    return this.lines.get(key)?.length ?? 0;
  }

  /** Live figures per key that has a configured limit or has been asked for. */
  stats(): Record<string, SlotStats> {
    const out: Record<string, SlotStats> = {};
    for (const key of new Set([...(this.opts.knownKeys ?? []), ...this.held.keys()])) {
      const limit = this.opts.limitOf(key);
      out[key] = { active: this.holders(key), queued: this.waiting(key), ...(limit !== undefined ? { limit } : {}) };
    }
    return out;
  }

  /** Whether a request for `keys` that is not in line would take its slots now. */
  free(keys: readonly string[]): boolean {
    return keys.every((key) => this.waiting(key) < this.room(key));
  }

  /**
   * Takes a slot of every key for `ticket` if each has room for it; otherwise puts the ticket in
   * line (once, on every key) and answers its place, 1 being next. `wake` is called when a slot
   * may have freed for it. Without a ticket a refused request does not wait in line.
   */
  tryAcquire(keys: readonly string[], ticket?: object, wake: () => void = () => {}): SlotAnswer {
    const waiter = ticket === undefined ? undefined : this.waiters.get(ticket);
    let position = 0;
    let fits = true;
    for (const key of keys) {
      const line = this.lines.get(key);
      const index = waiter && line ? line.indexOf(waiter) : -1;
      const ahead = index >= 0 ? index : (line?.length ?? 0);
      position = Math.max(position, ahead + 1);
      if (ahead >= this.room(key)) fits = false;
    }
    if (fits) {
      if (waiter) this.leaveLines(waiter, false);
      this.waiters.delete(ticket!);
      return { acquired: true, hold: this.take(keys) };
    }
    this.armBudgetTimers(keys);
    if (ticket === undefined) return { acquired: false, position, newlyQueued: false };
    if (waiter) return { acquired: false, position, newlyQueued: false };
    const queued: Waiter = { keys, wake };
    this.waiters.set(ticket, queued);
    for (const key of keys) {
      this.lineOf(key).push(queued);
      if (!this.held.has(key)) this.held.set(key, 0);
    }
    return { acquired: false, position, newlyQueued: true };
  }

  /**
   * Takes a slot of every key, waiting in line for them; undefined when `signal` aborts first
   * (then nothing is held and the request has left the line). `onWait` hears the request's place
   * whenever it is refused: when it joins the line (`newlyQueued`), and each time it is woken
   * and still has to wait (the place may not have changed).
   */
  acquire(keys: readonly string[], signal?: AbortSignal, onWait?: WaitListener): Promise<SlotHold | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const ticket = {};
    return new Promise<SlotHold | undefined>((resolve) => {
      const onAbort = () => {
        this.leave(ticket);
        resolve(undefined);
      };
      let waiting = false;
      const tryNow = (): boolean => {
        // Woken while its signal's abort is being delivered: it leaves the line unserved.
        if (signal?.aborted) return false;
        const answer = this.tryAcquire(keys, ticket, () => void tryNow());
        if (!answer.acquired) {
          onWait?.(answer.position, answer.newlyQueued);
          return false;
        }
        if (waiting && signal) this.stopWatching(signal, onAbort);
        resolve(answer.hold);
        return true;
      };
      if (!tryNow() && signal) {
        waiting = true;
        this.watch(signal, onAbort);
      }
    });
  }

  private watch(signal: AbortSignal, onAbort: () => void): void {
    let watched = this.underSignal.get(signal);
    if (!watched) {
      const waiting = new Set<() => void>();
      const listener = () => {
        this.underSignal.delete(signal);
        for (const abort of waiting) abort();
      };
      watched = { waiting, listener };
      this.underSignal.set(signal, watched);
      signal.addEventListener('abort', listener, { once: true });
    }
    watched.waiting.add(onAbort);
  }

  private stopWatching(signal: AbortSignal, onAbort: () => void): void {
    const watched = this.underSignal.get(signal);
    if (!watched) return;
    watched.waiting.delete(onAbort);
    if (watched.waiting.size > 0) return;
    // Nobody waits under it any more: the signal (a finished run's) is not kept.
    this.underSignal.delete(signal);
    signal.removeEventListener('abort', watched.listener);
  }

  /**
   * Runs `fn` holding a slot of every key, given back when it settles; `dropped` when `signal`
   * aborted before the slot was taken (nothing ran). A running `fn` keeps its slot whatever the
   * signal does: its process may still be alive.
   */
  async run<T>(
    keys: readonly string[],
    fn: () => Promise<T>,
    signal?: AbortSignal,
    onWait?: WaitListener,
  ): Promise<{ dropped: true } | { dropped: false; value: T }> {
    const hold = await this.acquire(keys, signal, onWait);
    if (!hold) return { dropped: true };
    try {
      return { dropped: false, value: await fn() };
    } finally {
      hold.release();
    }
  }

  /** `ticket`'s place in line (the furthest back over its keys, 1 being next), or undefined when it waits in none. */
  positionOf(ticket: object): number | undefined {
    const waiter = this.waiters.get(ticket);
    if (!waiter) return undefined;
    return Math.max(...waiter.keys.map((key) => (this.lines.get(key)?.indexOf(waiter) ?? 0) + 1));
  }

  /** Takes `ticket` out of line (its run stopped, or it was dropped); those behind it are told they moved up. */
  leave(ticket: object): void {
    const waiter = this.waiters.get(ticket);
    if (!waiter) return;
    this.waiters.delete(ticket);
    this.leaveLines(waiter, true);
  }

  /** Wakes those at the head of `key`'s line (its budget may have room again). */
  wake(key: string): void {
    const line = this.lines.get(key);
    if (line) for (const waiter of line.slice(0, Math.max(0, this.room(key)) + (this.opts.alsoWake ?? 0) + 1)) waiter.wake();
  }

  private take(keys: readonly string[]): SlotHold {
    for (const key of keys) {
      this.held.set(key, (this.held.get(key) ?? 0) + 1);
      this.opts.budget?.took(key);
    }
    let released = false;
    return {
      keys,
      release: (used?: number) => {
        if (released) return;
        released = true;
        this.release(keys, used);
      },
    };
  }

  private release(keys: readonly string[], used: number | undefined): void {
    let taken = true;
    for (const key of keys) {
      this.opts.budget?.gaveBack(key, used);
      // Kept at 0: stats go on listing a key that has been used.
      this.held.set(key, Math.max(0, (this.held.get(key) ?? 1) - 1));
      const line = this.lines.get(key);
      if (!line || line.length === 0) {
        taken = false;
        continue;
      }
      // Those who may take the slot, and those whose shown place moves up.
      for (const waiter of line.slice(0, Math.max(0, this.room(key)) + (this.opts.alsoWake ?? 0))) waiter.wake();
      if (this.room(key) > 0 && line.length === 0) taken = false;
    }
    if (!taken) this.onFree();
  }

  /** Removes `waiter` from its lines; when it left without a slot, those behind it (within reach) are woken. */
  private leaveLines(waiter: Waiter, wakeBehind: boolean): void {
    for (const key of waiter.keys) {
      const line = this.lines.get(key);
      const index = line ? line.indexOf(waiter) : -1;
      if (!line || index < 0) continue;
      line.remove(index);
      if (line.length === 0) this.lines.delete(key);
      else if (wakeBehind) {
        for (const behind of line.slice(index, Math.max(0, this.room(key)) + (this.opts.alsoWake ?? 0))) behind.wake();
      }
    }
  }

  private lineOf(key: string): Line {
    let line = this.lines.get(key);
    if (!line) {
      line = new Line();
      this.lines.set(key, line);
    }
    return line;
  }

  private room(key: string): number {
    const limit = this.opts.limitOf(key);
    const byLimit = limit === undefined ? Infinity : limit - (this.held.get(key) ?? 0);
    return this.opts.budget ? Math.min(byLimit, this.opts.budget.room(key)) : byLimit;
  }

  private armBudgetTimers(keys: readonly string[]): void {
    const budget = this.opts.budget;
    if (!budget) return;
    for (const key of keys) {
      if (this.budgetTimers.has(key)) continue;
      const ms = budget.msUntilRoom(key);
      if (ms === undefined) continue;
      const timer = setTimeout(() => {
        this.budgetTimers.delete(key);
        this.wake(key);
      }, ms);
      timer.unref();
      this.budgetTimers.set(key, timer);
    }
  }
}
