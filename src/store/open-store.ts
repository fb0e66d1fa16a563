import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import { openPgClusterSlots } from './postgres/slot-locks.js';
import type { ClusterSlots } from './cluster-slots.js';

export type { ClusterSlots } from './cluster-slots.js';
import type { Store } from './store.js';
import type { StoreConfig } from './store-config.js';

export type { Store } from './store.js';
export {
  describeStore, postgresStoreConfig, redactDatabaseUrl, sqliteStoreConfig, storeConfigOf, storeConfigSchema, type StoreConfig,
} from './store-config.js';

/** Tuning that is not part of where the data lives (tests shorten the poll, fake the clock). */
export interface OpenStoreOptions {
  /** Milliseconds since the epoch; injectable so lease expiry can be tested without waiting. */
  clock?: () => number;
  /** Fallback poll interval of the change notification. */
  pollMs?: number;
  /**
   * How long an operation keeps retrying while another process keeps the database busy (or,
   * for PostgreSQL, the server is unreachable), before it fails with STORE_UNAVAILABLE. Default about 30 s.
   */
  busyBudgetMs?: number;
  /** The supervisor the store writes run events for, fenced by its ownership (StoreConfig's `writer`). */
  writer?: string;
}

/** Opens the configured store: the SQLite file, or a PostgreSQL database (DATABASE_URL). */
export function openStore(config: StoreConfig, opts: OpenStoreOptions = {}): Store {
  const busy = {
    ...(config.busyBudgetMs !== undefined ? { busyBudgetMs: config.busyBudgetMs } : {}),
    ...(config.writer !== undefined ? { writer: config.writer } : {}),
  };
  switch (config.backend) {
    case 'sqlite':
      return openSqliteStore({ path: config.path, ...busy, ...opts });
    case 'postgres':
      return openPostgresStore({ url: config.url, ...busy, ...opts });
  }
}

/** Places counted across every process on the database (PostgreSQL); undefined for SQLite, where one supervisor counts its own. */
export function openClusterSlots(config: StoreConfig): ClusterSlots | undefined {
  return config.backend === 'postgres' ? openPgClusterSlots(config.url) : undefined;
}
