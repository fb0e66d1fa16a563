import { PgCopyTarget } from '../postgres/copy-target.js';
import { SqliteCopySource, type HeartbeatRow } from '../sqlite/copy-source.js';
import { redactDatabaseUrl } from '../store-config.js';
import { copiedTables, isDerivedSqliteTable, processTables, renamedColumns, targetSequences, type CopiedTable } from './copied-tables.js';
import { CopyRefusedError } from './copy-refused.js';

export type { HeartbeatRow } from '../sqlite/copy-source.js';

/** One table's rows: how many the source holds, how many the target holds after the copy. */
export interface TableCount {
  table: CopiedTable;
  source: number;
  target: number;
}

/** How far the copy of one table is: `copied` of `total` rows (a table's last report has them equal). */
export interface CopyProgress {
  table: CopiedTable;
  copied: number;
  total: number;
}

export interface CopyOptions {
  sqlitePath: string;
  /** postgres://… */
  url: string;
  /** Empty a target that already holds data (in the copy's transaction) instead of refusing it. */
  replace: boolean;
  /** Whether a heartbeat row belongs to a supervisor that still runs (its rule sits with the caller). */
  isLive(beat: HeartbeatRow): boolean;
  /** Called every `progressEvery` rows of a table, and when it is done. */
  onProgress(progress: CopyProgress): void;
  progressEvery?: number;
}

/** The outcome: every table's counts, and whether the copy was committed (every count matched). */
export interface CopyResult {
  counts: TableCount[];
  committed: boolean;
}

const BATCH_ROWS = 1_000;
const BATCH_CHARS = 8_000_000;

/**
 * Copies every table of a SQLite store into a PostgreSQL store, as one transaction on the
 * target, holding the source's write lock throughout. Refuses (CopyRefusedError, before the
 * target's data is touched) a source or target a server is using, and a target that already
 * holds an install's data unless `replace`. After the rows, the target's sequences are moved
 * past the copied ids and each table's count is compared with the source's; the transaction
 * commits only when every count matches, and is rolled back otherwise or on any error.
 */
export async function copySqliteToPostgres(opts: CopyOptions): Promise<CopyResult> {
  const source = SqliteCopySource.look(opts.sqlitePath);
  const sourceInUse = (who: string) => new CopyRefusedError('source_in_use', `${who} is using ${opts.sqlitePath}`);
  refuseLive(source.heartbeatsAtLook, opts.isLive, sourceInUse);
  let target: PgCopyTarget | undefined;
  try {
    source.lock();
    refuseLive(source.heartbeats(), opts.isLive, sourceInUse);
    const unknown = source.tables().filter((t) => !isDerivedSqliteTable(t) && !(copiedTables as readonly string[]).includes(t));
    if (unknown.length > 0) {
      throw new CopyRefusedError('schema_mismatch', `${opts.sqlitePath} has tables this Cairn does not know how to copy: ${unknown.join(', ')}`);
    }
    target = await PgCopyTarget.connect(opts.url);
    await target.begin(copiedTables);
    const where = redactDatabaseUrl(opts.url);
    refuseLive(await target.heartbeats(), opts.isLive, (who) => new CopyRefusedError('target_in_use', `${who} is using ${where}`));
    const held: string[] = [];
    for (const table of copiedTables) {
      if (processTables.has(table)) continue;
      const n = await target.count(table);
      if (n > 0) held.push(`${table}: ${n}`);
    }
    if (held.length > 0 && !opts.replace) {
      throw new CopyRefusedError('target_not_empty', `${where} already holds Cairn data (${held.join(', ')})`);
    }
    await target.clear(held.length > 0 ? copiedTables : [...processTables]);

    const counts: TableCount[] = [];
    for (const table of copiedTables) {
      const total = source.count(table);
      const { columns, expressions } = columnMap(table, source.columns(table), await target.columns(table));
      if (table === 'events') await target.numberEventsAtCommit(false);
      let copied = 0;
      let reported = 0;
      for (const batch of source.batches(table, expressions, Math.min(BATCH_ROWS, opts.progressEvery ?? BATCH_ROWS), BATCH_CHARS)) {
        try {
          await target.insert(table, columns, batch);
        } catch (err) {
          throw new Error(`PostgreSQL refused a row of ${table} (after ${copied} copied): ${(err as Error).message}`, { cause: err });
        }
        copied += batch.length;
        if (opts.progressEvery !== undefined && copied - reported >= opts.progressEvery && copied < total) {
          opts.onProgress({ table, copied, total });
          reported = copied;
        }
      }
      if (table === 'events') await target.numberEventsAtCommit(true);
      opts.onProgress({ table, copied, total });
      counts.push({ table, source: total, target: 0 });
    }
    for (const { table, column, sequence } of targetSequences) await target.moveSequencePast(table, column, sequence);
    for (const count of counts) count.target = await target.count(count.table);
    const committed = counts.every((c) => c.source === c.target);
    if (committed) await target.commit();
    return { counts, committed };
  } finally {
    await target?.close();
    source.close();
  }
}

/** Throws when a heartbeat says a supervisor still runs on the database. */
function refuseLive(beats: readonly HeartbeatRow[], isLive: (beat: HeartbeatRow) => boolean, refusal: (who: string) => Error): void {
  const live = beats.find(isLive);
  if (live) throw refusal(`a Cairn supervisor (pid ${live.pid} on ${live.hostname}, last heartbeat ${live.heartbeat_at})`);
}

/** The target's columns to fill and the source expression of each; a source column the target lacks is refused. */
function columnMap(table: CopiedTable, sourceColumns: readonly string[], targetColumns: readonly string[]): { columns: string[]; expressions: string[] } {
  const renamed = renamedColumns[table] ?? {};
  const columns: string[] = [];
  const expressions: string[] = [];
  for (const column of targetColumns) {
    const expression = renamed[column] ?? column;
    if (expression !== 'rowid' && !sourceColumns.includes(expression)) continue;
    columns.push(column);
    expressions.push(expression);
  }
  const unplaced = sourceColumns.filter((c) => !expressions.includes(c));
  if (unplaced.length > 0) {
    throw new CopyRefusedError('schema_mismatch', `the PostgreSQL schema has no column for ${table}.${unplaced.join(`, ${table}.`)}`);
  }
  return { columns, expressions };
}
