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

