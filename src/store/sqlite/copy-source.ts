import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CopyRefusedError } from '../copy/copy-refused.js';
import { openConnection } from './connection.js';
import { migrations } from './migrations.js';

/** A supervisor's heartbeat row, as much of it as tells whether that supervisor still runs. */
export interface HeartbeatRow {
  id: string;
  pid: number;
  hostname: string;
  heartbeat_at: string;
  state: string;
}

/** How long a write lock on the source is waited for before the source counts as in use. */
const LOCK_WAIT_MS = 2_000;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The SQLite file an install is copied from (`cairn migrate`). Looked at first read-only (is it
 * there, which schema version), without changing anything; then opened read-write with the write lock held for the whole copy (BEGIN IMMEDIATE): every table is read
 * in that one transaction, so the copy is one consistent moment of the file, and a server
 * started meanwhile cannot write to it. The lock is released without writing anything.
 */
export class SqliteCopySource {
  private db: Database.Database | undefined;

  private constructor(
    readonly path: string,
    /** The heartbeats as the read-only look found them. */
    readonly heartbeatsAtLook: readonly HeartbeatRow[],
  ) {}

  /** Looks at the file; refuses a missing file, one that is not a Cairn database, or one newer than this build. */
  static look(path: string): SqliteCopySource {
    if (!existsSync(path)) {
      throw new CopyRefusedError('source_missing', `there is no SQLite database at ${path}`);
    }
    let look: Database.Database | undefined;
    try {
      look = new Database(path, { readonly: true, fileMustExist: true });
      look.pragma('busy_timeout = 2000');
      const version = look.pragma('user_version', { simple: true }) as number;
      const latest = migrations[migrations.length - 1]?.version ?? 0;
      if (version > latest) {
        throw new CopyRefusedError(
          'source_unreadable',
          `${path} holds schema version ${version}, newer than this Cairn's ${latest}: run \`cairn migrate\` of the Cairn version that wrote it`,
        );
      }
      // A server still running shows here before the file is opened for writing (which may bring
      // its schema up to date: not under a server of another version).
      const hasBeats = look.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'supervisor_heartbeats'`).get() !== undefined;
      const beats = hasBeats ? (look.prepare('SELECT id, pid, hostname, heartbeat_at, state FROM supervisor_heartbeats').all() as HeartbeatRow[]) : [];
      return new SqliteCopySource(path, beats);
    } catch (err) {
      if (err instanceof CopyRefusedError) throw err;
      throw new CopyRefusedError('source_unreadable', `${path} does not open as a SQLite database: ${(err as Error).message}`, { cause: err });
    } finally {
      look?.close();
    }
  }

  /**
   * Opens the file as `cairn serve` does (an older schema is brought up to date first) and takes
   * its write lock for the copy. Refuses when another connection keeps the lock.
   */
  lock(): void {
    const db = openConnection(this.path);
    this.db = db;
    db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
    try {
      db.prepare('BEGIN IMMEDIATE').run();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      throw new CopyRefusedError('source_in_use', `another process is writing to ${this.path}`, { cause: err });
    }
  }

  private get open(): Database.Database {
    if (!this.db) throw new Error('the copy source is not locked yet');
    return this.db;
  }

  /** The supervisors' heartbeats, read under the lock: a server started since the look shows here. */
  heartbeats(): HeartbeatRow[] {
    return this.open.prepare('SELECT id, pid, hostname, heartbeat_at, state FROM supervisor_heartbeats').all() as HeartbeatRow[];
  }

  /** Every table of the file (derived ones included). */
  tables(): string[] {
    return (this.open.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  }

  columns(table: string): string[] {
    return (this.open.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name);
  }

  count(table: string): number {
    return (this.open.prepare(`SELECT COUNT(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
  }

  /**
   * The rows of `table` as arrays of the given source expressions (column names, or `rowid`),
   * in batches of at most `maxRows` rows and about `maxChars` characters of text.
   */
  *batches(table: string, expressions: readonly string[], maxRows: number, maxChars: number): Generator<unknown[][]> {
    const select = this.open
      .prepare(`SELECT ${expressions.map((e) => (e === 'rowid' ? 'rowid' : quote(e))).join(', ')} FROM ${quote(table)}`)
      .raw(true);
    let batch: unknown[][] = [];
    let chars = 0;
    for (const row of select.iterate() as Iterable<unknown[]>) {
      batch.push(row);
      for (const value of row) if (typeof value === 'string') chars += value.length;
      if (batch.length >= maxRows || chars >= maxChars) {
        yield batch;
        batch = [];
        chars = 0;
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Lets go of the lock (nothing was written) and closes the file. */
  close(): void {
    if (!this.db) return;
    try {
      if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
    } finally {
      this.db.close();
      this.db = undefined;
    }
  }
}
