import { z } from 'zod';

/**
 * Which database a process or worker thread opens. It travels in messages (the supervisor's
 * attempt tasks), so it is plain data; each receiver opens its own Store from it, and a
 * connection never crosses a thread. A PostgreSQL backend adds a variant here.
 */
export const storeConfigSchema = z.discriminatedUnion('backend', [
  z.object({
    backend: z.literal('sqlite'),
    /** The database file; its directory is created if missing. */
    path: z.string().min(1),
    /** How long an operation waits out a database another process keeps busy (CAIRN_STORE_BUSY_MS); default about 30 s. */
    busyBudgetMs: z.number().int().positive().optional(),
  }),
]);
export type StoreConfig = z.infer<typeof storeConfigSchema>;

/** The embedded default: one SQLite file. */
export function sqliteStoreConfig(path: string, busyBudgetMs?: number): StoreConfig {
  return { backend: 'sqlite', path, ...(busyBudgetMs !== undefined ? { busyBudgetMs } : {}) };
}
