import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { retryWhileBusy, type BusyRetryPolicy } from './busy-retry.js';
import { openConnection } from './connection.js';
import { diskFullOf } from './disk-full.js';
import { clockNow } from '../../shared/clock.js';

export interface SqliteSessionOptions {
  /** Path of the database file; its directory is created if missing. */
  path: string;
  /** Milliseconds since the epoch (Cairn's clock by default); injectable so lease expiry can be tested without waiting. */
  clock?: () => number;
  /** How long an operation keeps retrying a busy database before STORE_UNAVAILABLE. */
  busyBudgetMs?: number;
}

/** About 30 s: long enough to ride out a checkpoint or a slow peer, short enough to surface a stuck one. */
export const defaultBusyBudgetMs = 30_000;

/**
 * One thread's connection to the database, shared by the aggregate stores, with the two doors
 * every statement goes through: `read` and `write` (a BEGIN IMMEDIATE transaction). Both retry a
 * busy database asynchronously (see retryWhileBusy), and turn a full disk into a disk-full
 * STORE_UNAVAILABLE that names the database's folder (see disk-full.ts).
 */
export class SqliteSession {
  readonly db: Database.Database;
  private readonly clock: () => number;
  private readonly closing = new AbortController();
  private readonly retry: BusyRetryPolicy;
  /** The database's folder: what a disk-full error names. */
  private readonly folder: string;
  /** One transaction wrapper, reused: `fn` runs inside BEGIN IMMEDIATE ... COMMIT. */
  private readonly inTransaction: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(opts: SqliteSessionOptions) {
    this.db = openConnection(opts.path);
    this.folder = dirname(opts.path);
    this.clock = opts.clock ?? clockNow;
    this.retry = { budgetMs: opts.busyBudgetMs ?? defaultBusyBudgetMs, signal: this.closing.signal };
    this.inTransaction = this.db.transaction((fn: () => unknown) => fn());
  }

  /** The clock's time, plus `offsetMs`, as an ISO string (how every timestamp is stored). */
  now(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString();
  }

  /** Runs the read `fn`, retrying while the database is busy. */
  read<T>(what: string, fn: () => T): Promise<T> {
    return retryWhileBusy(what, () => this.guarded(what, fn), this.retry);
  }

  /**
   * Runs `fn` in a BEGIN IMMEDIATE transaction: the write lock is taken up front, so a busy
   * database fails the BEGIN (and is retried) instead of failing a read-to-write upgrade midway.
   * `fn` may run more than once, so it must not have effects outside the database.
   */
  write<T>(what: string, fn: () => T): Promise<T> {
    return retryWhileBusy(what, () => this.guarded(what, () => this.inTransaction.immediate(fn) as T), this.retry);
  }

  /** Runs one try; a full disk's error becomes the disk-full STORE_UNAVAILABLE (never retried here). */
  private guarded<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw diskFullOf(err, this.folder, what) ?? err;
    }
  }

  /**
   * Runs `fn` in a BEGIN IMMEDIATE transaction once, without waiting out a busy database (its
   * SQLITE_BUSY is thrown): for a probe, which reports a stuck database rather than wait.
   */
  writeOnce<T>(what: string, fn: () => T): T {
    return this.guarded(what, () => this.inTransaction.immediate(fn) as T);
  }

  /** Closes the connection; operations still waiting for a busy database fail at once. */
  close(): void {
    this.closing.abort();
    if (this.db.open) this.db.close();
  }
}
