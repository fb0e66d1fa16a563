import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homePaths, type HomePaths } from '../../src/shared/paths.js';
import { openStore, sqliteStoreConfig, type Store } from '../../src/store/open-store.js';

export interface TempHome {
  home: string;
  paths: HomePaths;
  /** Opens another connection to the home's database (each is closed by `close`). */
  openStore(opts?: { clock?: () => number; busyBudgetMs?: number }): Store;
  /** Registers something to close before the directory is removed. */
  defer(fn: () => unknown): void;
  close(): Promise<void>;
}

/** A fresh CAIRN_HOME in a temp directory; `close` closes everything opened in it, then removes it. */
export async function makeTempHome(): Promise<TempHome> {
  const home = await mkdtemp(join(tmpdir(), 'cairn-test-'));
  const paths = homePaths(home);
  const cleanups: (() => unknown)[] = [];
  return {
    home,
    paths,
    openStore(opts = {}) {
      const store = openStore(sqliteStoreConfig(paths.database), { pollMs: 50, ...opts });
      cleanups.push(() => store.close());
      return store;
    },
    defer(fn) {
      cleanups.push(fn);
    },
    async close() {
      const errors: unknown[] = [];
      for (const fn of cleanups.reverse()) {
        try {
          await fn();
        } catch (err) {
          errors.push(err);
        }
      }
      await rm(home, { recursive: true, force: true });
      if (errors.length) throw new AggregateError(errors, 'cleanup failed');
    },
  };
}
