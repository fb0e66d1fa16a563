import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Database from 'better-sqlite3';

/** The first look again after a watch event whose commit was not visible yet; doubles each time. */
const FIRST_RECHECK_MS = 1;
/** The longest gap between two looks while a commit is awaited. */
const MAX_RECHECK_MS = 50;

/**
 * Calls listeners after a commit to the database file, from any connection. Two sources:
 * an inotify/FSEvents watch on the database's directory (a commit in WAL mode writes the
 * `-wal` file), which wakes within a millisecond, and a fallback poll of `PRAGMA data_version`
 * (which changes when another connection commits) in case a watch event is lost or the
 * filesystem does not support watching. Both are coalesced to one call per tick.
 *
 * A watch event comes too early to be the only wake-up: the kernel reports the write of the
 * commit's WAL frames, but the commit becomes visible to other connections only after the log
 * is synced (`synchronous = FULL`) and the WAL index is updated, and neither produces an event.
 * The kernel also merges the commit's writes into one event, so a listener woken by it alone
 * often looked before the commit was there and then slept until the poll: on the 2-core
 * benchmark machine, POST → first node started took ~490 ms in 20 of 20 runs, every claim
 * landing on a 500 ms poll tick (`bench/run.ts first`: p50 436 ms, p99 555 ms). So after an
 * event whose commit is not visible yet, the watch keeps looking at `data_version`, 1 ms later,
 * then 2, 4, … (at most 50 ms apart) until it changes, and wakes listeners again then (p50 6 ms,
 * p99 8–19 ms); it stops at the poll interval, where the poll takes over.
 */
export class ChangeWatch {
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private recheckUntil = 0;
  private scheduled = false;
  private lastVersion = -1;
  /** Prepared once: `db.pragma()` prepares its statement again on every call. */
  private versionStatement: Database.Statement<[], number> | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly pollMs: number,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = undefined;
  }

  private start(): void {
    this.lastVersion = this.readVersion() ?? -1;
    const file = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, name) => {
        if (name === null || name.startsWith(file)) this.onWrite();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      this.watcher = undefined; // the poll below still wakes us
    }
    this.poll = setInterval(() => this.fireIfCommitted(), this.pollMs);
    this.poll.unref();
  }

  /**
   * The database files were written. Listeners are woken at once (the write may be this
   * connection's own commit, which `data_version` never shows), and again once another
   * connection's next commit is visible.
   *
   * The look goes on even when a commit is visible already: that may be an earlier commit, seen
   * late, while the one whose writes made this event is not done yet. Stopping there lost that
   * commit's wake-up until the poll (a listener woken, reading before the commit landed, and no
   * event after it; 2 in 36 runs of the connections test under load).
   */
  private onWrite(): void {
    if (!this.fireIfCommitted()) this.fire();
    this.recheckUntil = Date.now() + this.pollMs;
    if (this.recheck) clearTimeout(this.recheck);
    this.scheduleRecheck(FIRST_RECHECK_MS);
  }

  private scheduleRecheck(delayMs: number): void {
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      if (this.fireIfCommitted() || Date.now() >= this.recheckUntil) return;
      this.scheduleRecheck(Math.min(delayMs * 2, MAX_RECHECK_MS));
    }, delayMs);
    this.recheck.unref();
  }

  /** Wakes listeners if another connection committed since the last look; says whether it did. */
  private fireIfCommitted(): boolean {
    const version = this.readVersion();
    if (version === undefined || version === this.lastVersion) return false;
    this.lastVersion = version;
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = undefined;
    this.fire();
    return true;
  }

  /** `PRAGMA data_version`, or undefined while the database is busy or closing (a timer must not throw). */
  private readVersion(): number | undefined {
    try {
      this.versionStatement ??= this.db.prepare<[], number>('PRAGMA data_version').pluck();
      return this.versionStatement.get();
    } catch {
      return undefined;
    }
  }

  private fire(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
