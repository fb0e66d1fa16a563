import { statfsSync } from 'node:fs';
import type { CairnError } from '../../shared/errors.js';
import { diskFullError } from '../../shared/store-faults.js';

/**
 * The disk-full error for a statement SQLite refused for want of space, or undefined when the
 * error is something else. SQLite says SQLITE_FULL when a write of the database or its log hits
 * ENOSPC; growing the shared-memory index on a full disk fails as an I/O error instead
 * (SQLITE_IOERR_SHMSIZE and kin), which is taken for a full disk only when the folder's file
 * system has no room left.
 */
export function diskFullOf(err: unknown, folder: string, what: string): CairnError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL') return diskFullError(folder, what, err);
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR') && hasNoRoom(folder)) return diskFullError(folder, what, err);
  return undefined;
}

function hasNoRoom(folder: string): boolean {
  try {
    const fs = statfsSync(folder);
    return fs.bavail * fs.bsize < 64 * 1024;
  } catch {
    return false;
  }
}
