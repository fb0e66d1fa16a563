import { dirname } from 'node:path';
import { CairnError } from './errors.js';

/** `details.reason` of a STORE_UNAVAILABLE that a full disk caused. */
export const DISK_FULL = 'disk_full';

export interface DiskFullDetails {
  reason: typeof DISK_FULL;
  /** The folder whose disk has no room: the database's, or the one a file was written to. */
  folder: string;
  /** What could not be done, as a verb phrase ("claim a job"). */
  what: string;
}

/**
 * The error for a write a full disk refused: it names the folder and says what to do. The API
 * answers it 503 with `Retry-After`; the supervisor waits it out (see isWorthWaitingFor).
 */
export function diskFullError(folder: string, what: string, cause: unknown): CairnError {
  const details: DiskFullDetails = { reason: DISK_FULL, folder, what };
  return new CairnError(
    'STORE_UNAVAILABLE',
    `Disk full: Cairn could not ${what} because the disk holding ${folder} has no space left. Free ` +
      'space on that disk (or move CAIRN_HOME to a larger one); Cairn carries on by itself once ' +
      'there is room, and runs wait meanwhile. Retry the request then.',
    details,
    { cause },
  );
}

/** The error, then its causes, outermost first (a few levels: causes do not nest deeper). */
function* chain(err: unknown): Generator<unknown> {
  for (let depth = 0; err !== undefined && err !== null && depth < 5; depth++) {
    yield err;
    err = (err as { cause?: unknown }).cause;
  }
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` (or a cause of it) says a disk is out of space: ENOSPC, SQLITE_FULL, or a disk-full STORE_UNAVAILABLE. */
export function isOutOfSpace(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e instanceof CairnError) {
      if (e.code === 'STORE_UNAVAILABLE' && (e.details as Partial<DiskFullDetails> | undefined)?.reason === DISK_FULL) return true;
      continue;
    }
    const code = codeOf(e);
    if (code === 'ENOSPC' || code === 'SQLITE_FULL') return true;
  }
  return false;
}

/**
 * Whether waiting may mend what made a store write fail, so the work is tried again later
 * instead of failed: the disk is full, the database stayed busy past the store's own wait, or
 * SQLite could not do its I/O. A store that was closed is not worth waiting for: its process is
 * going away, and whoever drives the work next picks it up.
 */
export function isWorthWaitingFor(err: unknown): boolean {
  if (isOutOfSpace(err)) return true;
  for (const e of chain(err)) {
    if (e instanceof CairnError) {
      if (e.code !== 'STORE_UNAVAILABLE') continue;
      return (e.details as { closed?: boolean } | undefined)?.closed !== true;
    }
    const code = codeOf(e);
    if (code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_IOERR'))) return true;
  }
  return false;
}

/** A store fault as it crosses a thread boundary (custom error classes do not survive the copy). */
export interface StoreFault {
  message: string;
  details?: Record<string, unknown>;
}

/**
 * `err` as a StoreFault: a CairnError keeps its text and details; a file write that found its
 * disk full becomes the disk-full text naming the file's folder.
 */
export function storeFaultOf(err: unknown, what: string): StoreFault {
  if (err instanceof CairnError) {
    const details = err.details;
    return { message: err.message, ...(details && typeof details === 'object' ? { details: { ...details } } : {}) };
  }
  const path = (err as { path?: unknown } | null)?.path;
  if (isOutOfSpace(err) && typeof path === 'string') return storeFaultOf(diskFullError(dirname(path), what, err), what);
  return { message: (err as Error).message ?? String(err) };
}

/** The STORE_UNAVAILABLE a StoreFault stands for, rebuilt on this side of the boundary. */
export function storeFaultError(fault: StoreFault): CairnError {
  return new CairnError('STORE_UNAVAILABLE', fault.message, fault.details ?? {});
}
