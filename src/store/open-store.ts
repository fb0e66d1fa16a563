import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export type { Store } from './store.js';

/** Opens the configured store. Today that is the SQLite file; a PostgreSQL store sits here later. */
export function openStore(opts: { path: string; clock?: () => number; pollMs?: number }): Store {
  return new SqliteStore(opts);
}
