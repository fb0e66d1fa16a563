import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDirSync, PRIVATE_FILE_MODE } from '../shared/private-files.js';
import { z } from 'zod';
import type { HomePaths } from '../shared/paths.js';
import { isProcessAlive } from '../shared/process-group.js';

/**
 * The files under `$CAIRN_HOME/run/` that say a server is up: one pid file per child process,
 * and `server.json`, which tells the CLI where the server listens whatever port it chose.
 */
export const serverFileSchema = z.object({
  url: z.string().url(),
  /** The launcher's pid. */
  pid: z.number().int().positive(),
  startedAt: z.string(),
});
export type ServerFile = z.infer<typeof serverFileSchema>;

/** `$CAIRN_HOME/run/server.json`. */
export function serverFilePath(paths: HomePaths): string {
  return paths.serverFile;
}

/** The server file, or undefined when it is missing or unreadable. */
export function readServerFile(paths: HomePaths): ServerFile | undefined {
  let text: string;
  try {
    text = readFileSync(serverFilePath(paths), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = serverFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The server file when the launcher that wrote it is still alive. */
export function readLiveServerFile(paths: HomePaths): ServerFile | undefined {
  const file = readServerFile(paths);
  return file && isProcessAlive(file.pid) ? file : undefined;
}

export type ServerFileClaim = { claimed: true } | { claimed: false; holder: ServerFile };

/**
 * Publishes `file` as this home's server unless a live launcher already holds it. The content is
 * written to a private temp file first and hard-linked into place, so the claim is atomic and a
 * reader never sees a half-written file. A file left by a dead launcher is replaced.
 */
export function claimServerFile(paths: HomePaths, file: ServerFile): ServerFileClaim {
  makePrivateDirSync(paths.runDir);
  const target = serverFilePath(paths);
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(temp, target);
        return { claimed: true };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readServerFile(paths);
      if (holder && isProcessAlive(holder.pid) && holder.pid !== process.pid) return { claimed: false, holder };
      rmSync(target, { force: true });
    }
    throw new Error(`could not claim ${target}: another launcher keeps replacing it`);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Writes a pid file atomically (temp file + rename), creating the run directory if needed. */
export function writePidFile(path: string, pid: number): void {
  const temp = `${path}.${process.pid}.tmp`;
  makePrivateDirSync(join(path, '..'));
  writeFileSync(temp, `${pid}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temp, path);
}

/** Reads a pid file; undefined when it is missing or does not hold a pid. */
export function readPidFile(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the server file and both pid files; missing files are fine. */
export function removeRunFiles(paths: HomePaths): void {
  for (const path of [paths.apiPid, paths.supervisorPid, serverFilePath(paths)]) rmSync(path, { force: true });
}
