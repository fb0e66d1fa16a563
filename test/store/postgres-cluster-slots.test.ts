import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPgClusterSlots } from '../../src/store/postgres/slot-locks.js';
import { PgSession } from '../../src/store/postgres/session.js';
import { clusterHeld } from '../../src/supervisor/process/cluster-held-limiter.js';
import { GLOBAL_KEY, GLOBAL_SLOT, globalSlots } from '../../src/supervisor/run/engine-slots.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';
import { forkScript } from './fork-script.js';

/**
 * Places counted in PostgreSQL (store/postgres/slot-locks.ts): what the global and per-provider
 * limits across supervisors rest on, and the global limit's wrapping of them
 * (supervisor/process/cluster-held-limiter.ts).
 */

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const holder = fileURLToPath(new URL('./slot-holder-process.ts', import.meta.url));

it('holds a limit across connections exactly; a holder killed with -9 frees its place; an aborted wait runs nothing', async () => {
  const url = await cluster.createDatabase('cluster_slots');
  const a = openPgClusterSlots(url);
  const b = openPgClusterSlots(url);
  try {
    // Six holders from two processes' worth of connections, a limit of 2: never three at once.
    let open = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const hold = () => new Promise<void>((resolve) => gates.push(resolve));
    const runs = Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? a : b).run('provider:x', 2, async () => {
        open += 1;
        most = Math.max(most, open);
        await hold();
        open -= 1;
      }),
    );
    for (let released = 0; released < 6; released++) {
      // Both places taken (fewer once fewer are left): the two longest waiting hold them.
      await waitFor(() => gates.length >= Math.min(released + 2, 6), { what: 'both places to be taken' });
      expect(open).toBe(Math.min(2, 6 - released));
      gates[released]!();
    }
    await Promise.all(runs);
    expect(most).toBe(2);

    // Another process takes both places and is killed: its places come free, with nobody giving them back.
    const procs = [forkScript(holder, [url, 'provider:y', '2']), forkScript(holder, [url, 'provider:y', '2'])];
    try {
      await Promise.all(procs.map((p) => p.next('holding')));
      const waiting = new AbortController();
      const aborted = await (async () => {
        const run = a.run('provider:y', 2, async () => 'ran', waiting.signal);
        waiting.abort();
        return run;
      })();
      expect(aborted).toBeUndefined();
      let ran = false;
      const after = a.run('provider:y', 2, async () => (ran = true));
      procs[0]!.kill();
      await after;
      expect(ran).toBe(true);
    } finally {
      for (const p of procs) p.kill();
    }
  } finally {
    await a.close();
    await b.close();
  }
});

it("the global limit across two supervisors' limiters: a node waits for the place another holds, then runs; one whose wait is aborted is dropped unrun and gives its own slot back", async () => {
  const url = await cluster.createDatabase('cluster_global');
  const slotsA = openPgClusterSlots(url);
  const slotsB = openPgClusterSlots(url);
  try {
    // Each supervisor has a limit of 1 of its own, and the place in the database is shared.
    const localB = globalSlots(1);
    const a = clusterHeld(globalSlots(1), slotsA);
    const b = clusterHeld(localB, slotsB);
    let release!: () => void;
    const holding = new Promise<void>((resolve) => {
      void a.run(GLOBAL_SLOT, () => (resolve(), new Promise<void>((r) => (release = r))));
    });
    await holding;

    // B's node takes B's own slot, then waits for the database's place.
    const waiting = new AbortController();
    let ran = false;
    const dropped = b.run(GLOBAL_SLOT, async () => (ran = true), waiting.signal);
    await waitFor(() => localB.holders(GLOBAL_KEY) === 1, { what: "B's node to hold its own slot" });
    waiting.abort();
    expect(await dropped).toEqual({ dropped: true });
    expect(ran).toBe(false);
    expect(localB.holders(GLOBAL_KEY)).toBe(0);

    // Another waits, and runs once A's node ends.
    let nextRan = false;
    const next = b.run(GLOBAL_SLOT, async () => ((nextRan = true), 'ran'));
    await waitFor(() => localB.holders(GLOBAL_KEY) === 1, { what: "B's next node to hold its own slot" });
    expect(nextRan).toBe(false);
    release();
    expect(await next).toEqual({ dropped: false, value: 'ran' });
  } finally {
    await slotsA.close();
    await slotsB.close();
  }
});

it("asks the server to end a silent client's sessions 10 to 15 s after a split, on the store's connections as on the places'", async () => {
  const url = await cluster.createDatabase('keepalives');
  const session = new PgSession({ url });
  try {
    // Each statement on a connection of its own (a write holds one for its transaction).
    const shown = await Promise.all([1, 2].map(() => session.write('show keepalives', async (q) =>
      (await q(`SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS every, current_setting('tcp_keepalives_count') AS count, pg_backend_pid() AS pid`))[0]!,
    )));
    expect(new Set(shown.map((r) => r.pid)).size).toBe(2);
    for (const r of shown) expect([r.idle, r.every, r.count]).toEqual(['5', '2', '5']);
  } finally {
    await session.close();
  }
});
