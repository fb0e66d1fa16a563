import type pg from 'pg';
import { CopyRefusedError } from '../copy/copy-refused.js';
import { redactDatabaseUrl } from '../store-config.js';
import { migrate } from './migrate.js';
import { encodeParams } from './nul-codec.js';
import { pgDriver } from './pg-driver.js';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** PostgreSQL's limit of parameters in one statement. */
const MAX_PARAMS = 65_535;

/** The trigger that numbers events at commit (migrations.ts, version 1): off while copied events keep their numbers. */
const EVENT_SEQ_TRIGGER = 'events_seq_at_commit';

/**
 * The PostgreSQL database an install is copied into (`cairn migrate`), on one connection and
 * in one transaction: the copied tables are locked for it, and a failure rolls every row back.
 * Only the schema (the store's own migrations, as `cairn serve` would apply them) is committed
 * before the copy starts.
 */
export class PgCopyTarget {
  private inTransaction = false;

  private constructor(
    private readonly client: pg.Client,
    readonly url: string,
  ) {}

  /** Connects and brings the schema up to date. */
  static async connect(url: string): Promise<PgCopyTarget> {
    const client = new (pgDriver().Client)({ connectionString: url, connectionTimeoutMillis: 10_000 });
    // A server that drops the connection mid-copy must fail the copy, not the process.
    client.on('error', () => {});
    try {
      await client.connect();
      await migrate(client);
    } catch (err) {
      await client.end().catch(() => {});
      throw new CopyRefusedError('target_unreachable', `cannot use the PostgreSQL database ${redactDatabaseUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return new PgCopyTarget(client, url);
  }

  private async query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.client.query(sql, params as unknown[] | undefined)).rows as Record<string, unknown>[];
  }

  /** Opens the copy's transaction and locks `tables` against every other session until it ends. */
  async begin(tables: readonly string[]): Promise<void> {
    await this.query('BEGIN');
    this.inTransaction = true;
    await this.query(`SET LOCAL lock_timeout = '10s'`);
    try {
      await this.query(`LOCK TABLE ${tables.map(quote).join(', ')} IN ACCESS EXCLUSIVE MODE`);
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      throw new CopyRefusedError('target_in_use', `another session kept the tables of ${redactDatabaseUrl(this.url)} locked for 10 s`, { cause: err });
    }
  }

  async heartbeats(): Promise<{ id: string; pid: number; hostname: string; heartbeat_at: string; state: string }[]> {
    return (await this.query('SELECT id, pid, hostname, heartbeat_at, state FROM supervisor_heartbeats')) as never;
  }

  async count(table: string): Promise<number> {
    return Number((await this.query(`SELECT COUNT(*) AS n FROM ${quote(table)}`))[0]!.n);
  }

  async columns(table: string): Promise<string[]> {
    const rows = await this.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    return rows.map((r) => r.column_name as string);
  }

  /** Empties the tables (inside the copy's transaction: a rollback brings their rows back). */
  async clear(tables: readonly string[]): Promise<void> {
    if (tables.length > 0) await this.query(`TRUNCATE ${tables.map(quote).join(', ')}`);
  }

  /** Inserts rows (arrays in the order of `columns`), strings through the store's NUL escape. */
  async insert(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
    const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const values = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
      await this.query(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${values.join(', ')}`, encodeParams(chunk.flat()));
    }
  }

  /** While copied events are inserted, the trigger that would renumber them at commit is off (in this transaction only). */
  async numberEventsAtCommit(on: boolean): Promise<void> {
    await this.query(`ALTER TABLE events ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${EVENT_SEQ_TRIGGER}`);
  }

  /** Moves a sequence past the highest value copied into `table.column`, so new rows get numbers of their own. */
  async moveSequencePast(table: string, column: string, sequence?: string): Promise<void> {
    const max = (await this.query(`SELECT MAX(${quote(column)}) AS max FROM ${quote(table)}`))[0]!.max;
    if (max === null || max === undefined) return;
    const name = sequence ?? ((await this.query('SELECT pg_get_serial_sequence($1, $2) AS name', [table, column]))[0]!.name as string);
    await this.query('SELECT setval($1, $2, true)', [name, String(max)]);
  }

  async commit(): Promise<void> {
    await this.query('COMMIT');
    this.inTransaction = false;
  }

  /** Rolls back what the copy wrote (if anything) and disconnects. */
  async close(): Promise<void> {
    try {
      if (this.inTransaction) await this.query('ROLLBACK');
    } catch {
      // A connection already lost has rolled back on the server's side.
    } finally {
      this.inTransaction = false;
      await this.client.end().catch(() => {});
    }
  }
}
