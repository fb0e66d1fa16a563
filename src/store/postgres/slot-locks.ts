import type pg from 'pg';
import { pgDriver } from './pg-driver.js';
import type { ClusterSlots } from '../cluster-slots.js';
import { KEEPALIVE_IDLE_S, SERVER_KEEPALIVE_SQL } from './server-keepalive.js';

/** How often a wait for a place looks again. */
const POLL_MS = 50;

/** A stable 32-bit number for a key: the first half of an advisory lock's key. */
function keyNumber(key: string): number {
  let hash = 0x811c9dc5;
  for (const ch of `cairn-slot:${key}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return hash | 0;
}

/**
 * ClusterSlots over PostgreSQL session advisory locks: place `i` of `key` is the lock
 * (keyNumber(key), i), held on one connection of this process for as long as its holder runs.
 * The server releases a session's locks when its connection ends, so the places of a process
 * that dies (kill -9, a lost host) come free by themselves; one merely paused keeps them, which
 * errs on the side of fewer calls. A session takes the same lock again without waiting, so the
 * places this process holds are skipped by it.
 */
export function openPgClusterSlots(url: string): ClusterSlots {
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  const keys = new Map<string, KeyState>();
  const stateOf = (key: string): KeyState => {
    let state = keys.get(key);
    if (!state) keys.set(key, (state = { mine: new Set(), sleepers: new Set(), missedAt: undefined }));
    return state;
  };

  const connection = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new (pgDriver().Client)({
        connectionString: url, application_name: 'cairn-slots', keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_S * 1000,
      });
      // A lost connection lost its locks too: what it held is forgotten, and the next wait reconnects.
      c.on('error', () => undefined);
      c.on('end', () => {
        if (client === c) client = undefined;
        for (const state of keys.values()) state.mine.clear();
      });
      await c.connect();
      // The server frees this process's places when it sees the connection is dead: a lost host
      // (no FIN, no RST) within 10 to 15 s (server-keepalive.ts) rather than the system's
      // default of hours, during which the host's places would stay taken.
      await c.query(SERVER_KEEPALIVE_SQL).catch(async (err: unknown) => {
        await c.end().catch(() => undefined);
        throw err;
      });
      client = c;
      return c;
    })().finally(() => (connecting = undefined));
    return connecting;
  };

  // One try at a time in this process: the places it holds are known before the next try skips them.
  let trying: Promise<unknown> = Promise.resolve();
  const tryTake = (key: string, limit: number): Promise<number | undefined> => {
    const attempt = trying.then(async () => {
      const state = stateOf(key);
      // Every place was taken a moment ago and none of this process's came free since: the
      // waiters of this process ask the database once per poll between them, not once each.
      if (state.missedAt !== undefined && Date.now() - state.missedAt < POLL_MS / 2) return undefined;
      const c = await connection();
      // One round trip whatever the limit: the first of the places this process does not hold
      // that is free gets locked. The lock is the only condition (a place this process holds would
      // be locked again, not refused), and LIMIT 1 stops the scan there, locking nothing more.
      const others = Array.from({ length: limit }, (_, place) => place).filter((place) => !state.mine.has(place));
      if (!others.length) return undefined;
      const { rows } = await c.query<{ place: number }>({
        name: 'cairn_take_slot',
        text: 'SELECT place FROM unnest($2::int[]) AS place WHERE pg_try_advisory_lock($1::int, place) LIMIT 1',
        values: [keyNumber(key), others],
      });
      const place = rows[0]?.place;
      if (place === undefined) state.missedAt = Date.now();
      else state.mine.add(place);
      return place;
    });
    trying = attempt.catch(() => undefined);
    return attempt;
  };

  const give = async (key: string, place: number): Promise<void> => {
    const c = client;
    const state = stateOf(key);
    state.mine.delete(place);
    if (c) await c.query({ name: 'cairn_free_slot', text: 'SELECT pg_advisory_unlock($1::int, $2::int)', values: [keyNumber(key), place] }).catch(() => undefined);
    // The place is free: this process's waiters look at once rather than at their next poll
    // (another process's may still take it first).
    state.missedAt = undefined;
    for (const wake of [...state.sleepers]) wake();
  };

  return {
    async run(key, limit, fn, signal) {
      let place: number | undefined;
      while ((place = await tryTake(key, limit).catch(() => undefined)) === undefined) {
        if (signal?.aborted) return undefined;
        const sleepers = stateOf(key).sleepers;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, POLL_MS);
          function done() {
            clearTimeout(timer);
            sleepers.delete(done);
            signal?.removeEventListener('abort', done);
            resolve();
          }
          sleepers.add(done);
          signal?.addEventListener('abort', done, { once: true });
        });
        if (signal?.aborted) return undefined;
      }
      try {
        return { value: await fn() };
      } finally {
        await give(key, place);
      }
    },
    async close() {
      const c = client;
      client = undefined;
      for (const state of keys.values()) state.mine.clear();
      await c?.end().catch(() => undefined);
    },
  };
}

/** What this process knows of one key's places. */
interface KeyState {
  /** The places it holds. */
  mine: Set<number>;
  /** Its waiters between two tries: woken when it gives a place back. */
  sleepers: Set<() => void>;
  /** When a try last found every place taken (undefined: since then one of its own came free). */
  missedAt: number | undefined;
}
