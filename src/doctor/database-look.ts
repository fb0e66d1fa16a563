import { existsSync } from 'node:fs';
import type { DatabaseLook } from '../store/sqlite/read-only-look.js';

/** The home's database looked at read-only, once, for the database and credential checks. */
export type DatabaseFile =
  | { state: 'missing' }
  | { state: 'read'; look: DatabaseLook }
  | { state: 'unreadable'; message: string; code: string | undefined };

export async function readDatabaseFile(path: string): Promise<DatabaseFile> {
  if (!existsSync(path)) return { state: 'missing' };
  try {
    // The SQLite driver is loaded here only: the CLI stays light until a check needs it.
    const { lookAtDatabase } = await import('../store/sqlite/read-only-look.js');
    return { state: 'read', look: lookAtDatabase(path) };
  } catch (err) {
    const e = err as Error & { code?: unknown };
    return { state: 'unreadable', message: e.message, code: typeof e.code === 'string' ? e.code : undefined };
  }
}
