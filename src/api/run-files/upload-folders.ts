import { randomUUID } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, startedNoLaterThan } from '../../shared/process-group.js';
import type { Logger } from '../../shared/log.js';

/**
 * The folders multipart uploads are received into (`$CAIRN_HOME/tmp/uploads/<pid>-<uuid>`),
 * named for the API process that receives them. A request moves its folder into the run or
 * removes it; an API killed mid-upload leaves it behind, and the next API to start on the home
 * removes what no live request can own.
 */

/** A folder name for an upload this process receives. */
export function newUploadFolderName(pid = process.pid): string {
  return `${pid}-${randomUUID()}`;
}

const owned = /^(\d+)-[0-9a-f-]{36}$/;

/**
 * A folder without an owner's pid (named by a version before this one) is removed once it is
 * this old: no upload takes that long, and one that did would belong to an API of that version
 * running beside this one on the same home.
 */
export const UNOWNED_UPLOAD_GRACE_MS = 60 * 60 * 1000;

export interface SweepOptions {
  log: Logger;
  /** This process's pid: nothing it owns is live yet when it sweeps (before it listens). */
  pid?: number;
  now?: () => number;
}

/**
 * Removes the upload folders no live request owns: this process's (a previous process of the
 * same pid), those of an API that is gone, or whose pid now names a process started after the
 * folder was last written (the pid was reused). Folders of another live API on the same home
 * are kept. Returns the names removed; a folder that cannot be removed is logged and left.
 */
export async function sweepStaleUploads(root: string, opts: SweepOptions): Promise<string[]> {
  const pid = opts.pid ?? process.pid;
  const now = opts.now ?? Date.now;
  const names = await readdir(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const removed: string[] = [];
  for (const name of names) {
    const path = join(root, name);
    const modified = await stat(path).then((s) => s.mtimeMs, () => undefined);
    if (modified === undefined) continue; // removed meanwhile (by its request)
    const owner = owned.exec(name)?.[1];
    const stale =
      owner === undefined
        ? now() - modified > UNOWNED_UPLOAD_GRACE_MS
        : Number(owner) === pid || !isProcessAlive(Number(owner)) || !startedNoLaterThan(Number(owner), modified);
    if (!stale) continue;
    try {
      await rm(path, { recursive: true, force: true });
      removed.push(name);
    } catch (err) {
      opts.log.warn({ err, path }, 'api.upload_sweep_failed');
    }
  }
  if (removed.length) opts.log.info({ removed: removed.length, root }, 'api.stale_uploads_removed');
  return removed;
}
