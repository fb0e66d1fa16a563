import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Database from 'better-sqlite3';

/**
 * Calls listeners after a commit to the database file, from any connection. Two sources:
 * an inotify/FSEvents watch on the database's directory (a commit in WAL mode writes the
 * `-wal` file), which wakes within a millisecond, and a fallback poll of `PRAGMA data_version`
 * (which changes when another connection commits) in case a watch event is lost or the
 * filesystem does not support watching. Both are coalesced to one call per tick.
 */
export class ChangeWatch {
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private scheduled = false;
  private lastVersion = -1;

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
  }

  private start(): void {
    const file = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, name) => {
        if (name === null || name.startsWith(file)) this.fire();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      this.watcher = undefined; // the poll below still wakes us
    }
    this.poll = setInterval(() => {
      let version: number;
      try {
        version = this.db.pragma('data_version', { simple: true }) as number;
      } catch {
        return; // busy or closing: the next poll (or the watch) catches up, and a timer must not throw
      }
      if (version !== this.lastVersion) {
        this.lastVersion = version;
        this.fire();
      }
    }, this.pollMs);
    this.poll.unref();
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
