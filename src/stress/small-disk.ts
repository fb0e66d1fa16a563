import { execFileSync } from 'node:child_process';
import { open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A real small disk, filled and freed on purpose: a tmpfs mounted on a folder, which ENOSPC hits
 * as it would a full partition (SQLite then says SQLITE_FULL). `cairn stress --disk-full` puts
 * its scratch home on one; the test suite's full-disk tests use the same code. Mounting needs
 * root.
 */

/** Whether this process may mount a tmpfs (it runs as root). */
export const canMountSmallDisk = (): boolean => process.getuid?.() === 0;

/** Mounts a `sizeMb` tmpfs on the (existing) folder `dir`. */
export function mountTmpfs(dir: string, sizeMb: number): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
}

/** Unmounts `dir`, detaching it lazily when something still holds a file there. */
export function unmountTmpfs(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  }
}

/** The file that fills a small disk, in its root. */
const fillerOf = (dir: string) => join(dir, 'cairn-disk-filler');

export interface FillOptions {
  /**
   * A database on this disk: its WAL is first checkpointed and truncated. SQLite reuses WAL space
   * it already has, so only then must the next commit grow a file, and fail.
   */
  database?: string;
  /** How long to keep trying that checkpoint while the server's writers hold the WAL. Default 10 s. */
  checkpointWithinMs?: number;
  /**
   * Files on this disk extended with newlines until ENOSPC too (a log read line by line): the
   * rest of their last page would still take a few KB.
   */
  topUp?: string[];
}

/**
 * Fills the disk mounted at `dir` to its last byte. Returns whether the WAL was truncated first
 * (false: the server's writers held it past `checkpointWithinMs`; commits may then go on a while
 * in WAL space SQLite already has).
 */
export async function fillDisk(dir: string, opts: FillOptions = {}): Promise<{ walTruncated: boolean }> {
  const walTruncated = opts.database === undefined ? true : await truncateWalWithin(opts.database, opts.checkpointWithinMs ?? 10_000);
  await extendUntilFull(fillerOf(dir), 0);
  for (const path of opts.topUp ?? []) await extendUntilFull(path, 0x0a);
  const fs = await statfs(dir);
  if (fs.bavail !== 0) throw new Error(`the small disk at ${dir} still has ${fs.bavail} free blocks after filling it`);
  return { walTruncated };
}

/** Removes what `fillDisk` wrote: the disk has room again. */
export async function freeDisk(dir: string): Promise<void> {
  await rm(fillerOf(dir), { force: true });
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Truncates the database's WAL, trying again while writers hold it; false if they held it throughout. */
async function truncateWalWithin(database: string, withinMs: number): Promise<boolean> {
  // Loaded here: the CLI that imports this module stays free of the database driver.
  const { truncateWal } = await import('../store/sqlite/file-upkeep.js');
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (truncateWal(database)) return true;
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
}
