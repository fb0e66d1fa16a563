import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { failed, passed, warned, type CheckResult } from './check.js';

/** Free space on the home's filesystem: under 1 GiB is a warning, under 100 MiB a failure (runs then wait for space). */

export const WARN_BELOW_BYTES = 1024 ** 3;
export const FAIL_BELOW_BYTES = 100 * 1024 ** 2;

const ID = 'disk';
const NAME = 'disk space';

function size(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return `${Math.floor(bytes / 1024 ** 2)} MiB`;
}

export async function checkDiskSpace(home: string): Promise<CheckResult> {
  // A home not made yet lives on the filesystem of its nearest existing parent.
  let folder = home;
  for (;;) {
    try {
      const fs = await statfs(folder);
      const free = fs.bavail * fs.bsize;
      const where = `${size(free)} free for ${folder}${folder === home ? '' : ` (where ${home} will be)`}`;
      if (free < FAIL_BELOW_BYTES) {
        return failed(ID, NAME, `${where}: under 100 MiB, runs wait for space and the server may stop taking writes`, `free space on the disk that holds ${folder}, or move CAIRN_HOME to a larger one`);
      }
      if (free < WARN_BELOW_BYTES) return warned(ID, NAME, `${where}: under 1 GiB`, `free space on the disk that holds ${folder} before long runs fill it`);
      return passed(ID, NAME, where);
    } catch (err) {
      const parent = dirname(folder);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === folder) {
        return failed(ID, NAME, `cannot tell the free space for ${folder}: ${(err as Error).message}`, `make ${folder} readable by this user`);
      }
      folder = parent;
    }
  }
}
