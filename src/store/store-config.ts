import { z } from 'zod';

/**
 * Which database a process or worker thread opens. It travels in messages (the supervisor's
 * attempt tasks), so it is plain data; each receiver opens its own Store from it, and a
 * connection never crosses a thread.
 */
export const storeConfigSchema = z.discriminatedUnion('backend', [
  z.object({
    backend: z.literal('sqlite'),
    /** The database file; its directory is created if missing. */
    path: z.string().min(1),
    /** How long an operation waits out a database another process keeps busy (CAIRN_STORE_BUSY_MS); default about 30 s. */
    busyBudgetMs: z.number().int().positive().optional(),
    /**
     * The supervisor this store writes for (set by a supervisor on a shared database): its run
     * events are written only while it owns the run (store/rules/write-fence.ts).
     */
    writer: z.string().min(1).optional(),
  }),
  z.object({
    backend: z.literal('postgres'),
    /** `postgres://user:password@host:port/database` (DATABASE_URL). */
    url: z.string().min(1),
    /** How long an operation waits out a locked or unreachable server (CAIRN_STORE_BUSY_MS); default about 30 s. */
    busyBudgetMs: z.number().int().positive().optional(),
    /**
     * The supervisor this store writes for (set by a supervisor on a shared database): its run
     * events are written only while it owns the run (store/rules/write-fence.ts).
     */
    writer: z.string().min(1).optional(),
  }),
]);
export type StoreConfig = z.infer<typeof storeConfigSchema>;

/** The embedded default: one SQLite file. */
export function sqliteStoreConfig(path: string, busyBudgetMs?: number): StoreConfig {
  return { backend: 'sqlite', path, ...(busyBudgetMs !== undefined ? { busyBudgetMs } : {}) };
}

/** A PostgreSQL database shared by every process (DATABASE_URL). */
export function postgresStoreConfig(url: string, busyBudgetMs?: number): StoreConfig {
  return { backend: 'postgres', url, ...(busyBudgetMs !== undefined ? { busyBudgetMs } : {}) };
}

/**
 * The store the settings name: PostgreSQL when DATABASE_URL is set, else the SQLite file of
 * CAIRN_HOME.
 */
export function storeConfigOf(settings: { databaseUrl?: string; paths: { database: string }; storeBusyMs?: number }): StoreConfig {
  return settings.databaseUrl !== undefined
    ? postgresStoreConfig(settings.databaseUrl, settings.storeBusyMs)
    : sqliteStoreConfig(settings.paths.database, settings.storeBusyMs);
}

/** The URL with its password replaced by `***`, for errors and logs: a password is never printed. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) if (/pass/i.test(key)) parsed.searchParams.set(key, '***');
    return parsed.toString();
  } catch {
    return 'the configured DATABASE_URL (not a valid URL)';
  }
}

/** Where a store lives, as a person reads it: the file's path, or the server's URL without its password. */
export function describeStore(config: StoreConfig): string {
  return config.backend === 'sqlite' ? config.path : redactDatabaseUrl(config.url);
}
