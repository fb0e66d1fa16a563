import Database from 'better-sqlite3';

/**
 * Upkeep of a SQLite database file from outside its server, on a connection of its own: what
 * `cairn stress` and the full-disk tests do to the file a running server has open.
 */

/**
 * Checkpoints the WAL into the database and truncates it to zero bytes. Returns false when
 * another connection held the WAL so the checkpoint could not finish (nothing is lost then).
 */
export function truncateWal(path: string): boolean {
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 1000');
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return result!.busy === 0;
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of the database, read only: 'ok' when it is sound, else its findings. */
export function integrityOf(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}
