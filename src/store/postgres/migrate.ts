import type pg from 'pg';
import { pgMigrations } from './migrations.js';

/** The advisory lock two processes migrating at once take in turn (any constant of our own). */
const MIGRATION_LOCK = 4242000;

/**
 * Applies every migration newer than the database's, in order, each in its own transaction that
 * also records it in `schema_migrations`. Processes that start together take an advisory lock in
 * turn and re-read the version under it, so each migration is applied exactly once. A database
 * already up to date costs one read.
 */
export async function migrate(client: pg.ClientBase): Promise<void> {
  const latest = pgMigrations[pgMigrations.length - 1]?.version ?? 0;
  if ((await currentVersion(client)) >= latest) return;
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const current = await currentVersion(client);
    for (const migration of pgMigrations) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}

/** The newest migration applied, 0 for an empty database. */
export async function currentVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!(rows[0] as { present: boolean }).present) return 0;
  const { rows: versions } = await client.query('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations');
  return Number((versions[0] as { version: number | string }).version);
}
