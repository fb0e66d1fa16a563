import type Database from 'better-sqlite3';

/** The health probe's write: one row, overwritten each time (migration 16). */
export function probeStatements(db: Database.Database) {
  const touch = db.prepare(
    `INSERT INTO store_probe (id, probed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`,
  );
  return {
    touch(now: string): void {
      touch.run(now);
    },
  };
}
