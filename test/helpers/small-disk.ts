import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';

/**
 * A real small disk for full-disk tests: a tmpfs mounted for the test, which ENOSPC hits as it
 * would a full partition (SQLite then says SQLITE_FULL). Mounting needs root; elsewhere the
 * tests that use it are skipped (`smallDisksAvailable`).
 */
export interface SmallDisk {
  dir: string;
  /**
   * Fills the disk to its last page with a file. With `database` (on this disk), its WAL is
   * first checkpointed and truncated: SQLite reuses WAL space it already has, so only then
   * must the next commit grow a file, and fail. `topUp` files (on this disk) are extended with
   * newlines until ENOSPC too: the rest of their last page would still take a few KB.
   */
  fill(opts?: { database?: string; topUp?: string[] }): Promise<void>;
  /** Removes the filler: the disk has room again. */
  free(): Promise<void>;
}

/** Whether this process may mount a tmpfs (it runs as root). */
export const smallDisksAvailable = process.getuid?.() === 0;

/** Mounts a `sizeMb` tmpfs at `dir` (made if missing); unmounted when the home closes, after whatever was opened on it later. */
export function mountSmallDisk(home: TempHome, dir: string, sizeMb: number): SmallDisk {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
  // Deferred first, so it runs last: servers and stores opened on the disk are closed by then.
  home.defer(() => {
    try {
      execFileSync('umount', [dir]);
    } catch {
      execFileSync('umount', ['-l', dir]); // something still holds a file there: detach it anyway
    }
  });
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill(opts = {}) {
      if (opts.database) await truncateWal(opts.database);
      await extendUntilFull(filler, 0);
      // Blank lines: a top-up file may be a log that is read line by line.
      for (const path of opts.topUp ?? []) await extendUntilFull(path, 0x0a);
      const fs = await statfs(dir);
      if (fs.bavail !== 0) throw new Error(`the small disk still has ${fs.bavail} free blocks`);
    },
    async free() {
      await rm(filler);
    },
  };
}

/** Appends `byte`s to `path` until the disk refuses: big chunks first, then a page at a time, then one. */
async function extendUntilFull(path: string, byte: number): Promise<void> {
  const file = await open(path, 'a');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, byte);
      for (;;) {
        const { bytesWritten } = await file.write(chunk).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOSPC') throw err;
          return { bytesWritten: 0 };
        });
        if (bytesWritten < size) break;
      }
    }
  } finally {
    await file.close();
  }
}

/** Checkpoints the database's WAL into the file and truncates it (waiting for writers that hold it). */
async function truncateWal(database: string): Promise<void> {
  const db = new Database(database);
  try {
    db.pragma('busy_timeout = 1000');
    await waitFor(() => (db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]!.busy === 0, {
      what: 'the WAL to be checkpointed and truncated',
    });
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of the database: 'ok' when it is sound. */
export function integrityOf(database: string): string {
  const db = new Database(database, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}
