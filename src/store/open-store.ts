import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import type { StoreConfig } from './store-config.js';

export type { Store } from './store.js';
export { sqliteStoreConfig, storeConfigSchema, type StoreConfig } from './store-config.js';

/** Tuning that is not part of where the data lives (tests shorten the poll, fake the clock). */
export interface OpenStoreOptions {
  /** Milliseconds since the epoch; injectable so lease expiry can be tested without waiting. */
  clock?: () => number;
  /** Fallback poll interval of the change notification. */
  pollMs?: number;
  /**
   * How long an operation keeps retrying while another process keeps the database busy, before
   * it fails with STORE_UNAVAILABLE. Default about 30 s.
   */
  busyBudgetMs?: number;
}

/** Opens the configured store. Today that is the SQLite file; a PostgreSQL store sits here later. */
export function openStore(config: StoreConfig, opts: OpenStoreOptions = {}): Store {
  switch (config.backend) {
    case 'sqlite':
      return openSqliteStore({ path: config.path, ...(config.busyBudgetMs !== undefined ? { busyBudgetMs: config.busyBudgetMs } : {}), ...opts });
  }
}
