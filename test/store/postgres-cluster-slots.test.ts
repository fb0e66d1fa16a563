import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPgClusterSlots } from '../../src/store/postgres/slot-locks.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';
import { forkScript } from './fork-script.js';

/** Places counted in PostgreSQL (store/postgres/slot-locks.ts): what the per-provider limit across supervisors rests on. */

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
