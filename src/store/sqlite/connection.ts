import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/**
 * Opens a connection with the pragmas every Cairn process relies on. `busy_timeout` is set
 * before anything else so that even the WAL switch and the migrations wait for a concurrent
 * writer instead of failing with SQLITE_BUSY.
 */
export function openConnection(path: string, opts: { readonly?: boolean } = {}): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: opts.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives a process crash; only an OS crash can lose the
  // last transactions, and never corrupts the file.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) migrate(db);
  return db;
}
