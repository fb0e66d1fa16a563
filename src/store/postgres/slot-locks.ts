import type pg from 'pg';
import { pgDriver } from './pg-driver.js';
import type { ClusterSlots } from '../cluster-slots.js';

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
  const held = new Map<string, Set<number>>();

  const connection = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new (pgDriver().Client)({ connectionString: url, application_name: 'cairn-slots' });
      // A lost connection lost its locks too: what it held is forgotten, and the next wait reconnects.
      c.on('error', () => undefined);
      c.on('end', () => {
        if (client === c) client = undefined;
        held.clear();
      });
      await c.connect();
      client = c;
      return c;
    })().finally(() => (connecting = undefined));
    return connecting;
  };

  const tryTake = async (key: string, limit: number): Promise<number | undefined> => {
    const mine = held.get(key) ?? new Set<number>();
    held.set(key, mine);
    const c = await connection();
    for (let place = 0; place < limit; place++) {
      if (mine.has(place)) continue;
      mine.add(place); // claimed here first, so no other waiter of this process asks for it meanwhile
      const { rows } = await c.query('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [keyNumber(key), place]).catch((err: unknown) => {
        mine.delete(place);
        throw err;
      });
      if (rows[0]?.ok === true) return place;
      mine.delete(place);
    }
    return undefined;
  };

  const give = async (key: string, place: number): Promise<void> => {
    const c = client;
    held.get(key)?.delete(place);
    if (c) await c.query('SELECT pg_advisory_unlock($1::int, $2::int)', [keyNumber(key), place]).catch(() => undefined);
  };

  return {
    async run(key, limit, fn, signal) {
      let place: number | undefined;
      while ((place = await tryTake(key, limit).catch(() => undefined)) === undefined) {
        if (signal?.aborted) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, POLL_MS);
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
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
      held.clear();
      await c?.end().catch(() => undefined);
    },
  };
}
