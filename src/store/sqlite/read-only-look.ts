import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

/**
 * A look at a database file from outside its server, on a read-only connection that changes
 * nothing (`cairn doctor`): does it open and answer, which schema version it holds, and which
 * vendors users stored credentials for (presence only; the sealed values are not read).
 */
export interface DatabaseLook {
  schemaVersion: number;
  /** The newest schema this build knows; `cairn serve` migrates an older file to it at start. */
  latestSchemaVersion: number;
  /** Users with a stored credential, per vendor. */
  credentialUsers: Map<string, number>;
}

/** Throws better-sqlite3's error (its `code`: SQLITE_NOTADB, SQLITE_CANTOPEN, ...) when the file does not open or answer. */
export function lookAtDatabase(path: string): DatabaseLook {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 2000');
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((t) => t.name));
    const credentialUsers = new Map<string, number>();
    if (tables.has('provider_credentials')) {
      const rows = db.prepare('SELECT vendor, COUNT(DISTINCT user_id) AS users FROM provider_credentials GROUP BY vendor').all() as { vendor: string; users: number }[];
      for (const row of rows) credentialUsers.set(row.vendor, row.users);
    }
    return { schemaVersion, latestSchemaVersion: migrations[migrations.length - 1]?.version ?? 0, credentialUsers };
  } finally {
    db.close();
  }
}
