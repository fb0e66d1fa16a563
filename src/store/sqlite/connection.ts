import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateFileSync, makePrivateDirSync, tightenFileModeSync } from '../../shared/private-files.js';
import { migrate } from './migrations.js';

/**
 * How long one statement may block its thread waiting for another connection's write lock.
 * Short, because the wait is synchronous: the whole process (API, supervisor heartbeats, worker
 * cancels) stalls for it. A longer wait is an asynchronous retry (busy-retry.ts).
 */
export const busyTimeoutMs = 50;

/**
 * Opening may wait longer: it happens once per process or thread, before it serves anything,
 * and the WAL switch and the migrations cannot be retried from a synchronous constructor.
 */
const openBusyTimeoutMs = 10_000;

/**
 * Opens a connection with the pragmas every Cairn process relies on. `busy_timeout` is set
 * before anything else so that even the WAL switch and the migrations wait for a concurrent
 * writer instead of failing with SQLITE_BUSY.
 */
export function openConnection(path: string, opts: { readonly?: boolean } = {}): Database.Database {
  if (!opts.readonly) makePrivateDatabaseFiles(path);
  const db = new Database(path, { readonly: opts.readonly ?? false });
  db.pragma(`busy_timeout = ${openBusyTimeoutMs}`);
  switchToWal(db);
  // FULL in WAL mode syncs the log before a commit becomes visible to other connections, so a
  // row a reader has seen (an event seq sent to an SSE client) survives an OS crash or power
  // loss, and its seq is never handed out again. NORMAL would let an OS crash drop the last
  // commits and reuse their seqs. Measured against NORMAL on the 2-core benchmark machine: one
  // event per commit 30 → 72 µs; 16 events per commit (one worker tick) 115k → 88k events/s;
  // 100 per commit 163k → 153k; three writer processes, 2 per commit, 49k → 26k events/s.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) migrate(db);
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

/**
 * The database holds every run's messages, outputs and sealed secrets: its folder is made 0700 and
 * the file is created 0600 before SQLite opens it, because SQLite creates the `-wal` and `-shm`
 * files with the main file's mode (on Unix it copies it), whatever the umask. Files of an older
 * install, created 0644, are tightened at open.
 */
function makePrivateDatabaseFiles(path: string): void {
  makePrivateDirSync(dirname(path));
  createPrivateFileSync(path);
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) tightenFileModeSync(file);
}

/**
 * `journal_mode = WAL`, retried: on a new database file, two processes switching at once can get
 * SQLITE_BUSY straight away (SQLite does not call the busy handler when waiting could deadlock),
 * so `busy_timeout` alone does not cover it. Waits 20 ms between tries, up to the open timeout.
 */
function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + openBusyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
