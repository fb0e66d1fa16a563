import { mkdirSync } from 'node:fs';
import { canMountSmallDisk, fillDisk, freeDisk, mountTmpfs, unmountTmpfs, type FillOptions } from '../../src/stress/small-disk.js';
import type { TempHome } from './temp-home.js';

export { integrityOf } from '../../src/store/sqlite/file-upkeep.js';

/**
 * A real small disk for full-disk tests: a tmpfs mounted for the test (the code `cairn stress
 * --disk-full` uses). Mounting needs root; elsewhere the tests that use it are skipped
 * (`smallDisksAvailable`).
 */
export interface SmallDisk {
  dir: string;
  /** Fills the disk to its last page (see `fillDisk`); fails if the database's WAL could not be truncated first. */
  fill(opts?: Pick<FillOptions, 'database' | 'topUp'>): Promise<void>;
  /** Removes the filler: the disk has room again. */
  free(): Promise<void>;
}

/** Whether this process may mount a tmpfs (it runs as root). */
export const smallDisksAvailable = canMountSmallDisk();

/** Mounts a `sizeMb` tmpfs at `dir` (made if missing); unmounted when the home closes, after whatever was opened on it later. */
export function mountSmallDisk(home: TempHome, dir: string, sizeMb: number): SmallDisk {
  mkdirSync(dir, { recursive: true });
  mountTmpfs(dir, sizeMb);
  // Deferred first, so it runs last: servers and stores opened on the disk are closed by then.
  home.defer(() => unmountTmpfs(dir));
  return {
    dir,
    async fill(opts = {}) {
      const { walTruncated } = await fillDisk(dir, { ...opts, checkpointWithinMs: 30_000 });
      if (!walTruncated) throw new Error(`the WAL of ${opts.database} could not be truncated before filling the disk`);
    },
    free: () => freeDisk(dir),
  };
}
