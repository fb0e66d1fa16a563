import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';

/**
 * The modes of what Cairn creates under `$CAIRN_HOME`: files that hold user data (the database,
 * its WAL and shared-memory files, config.yaml, the install key, run files, uploads, spilled
 * outputs) are 0600 and the folders Cairn makes 0700, whatever the umask. An existing folder
 * keeps its mode (a home the user placed somewhere on purpose is theirs to set); an existing
 * data file is tightened where Cairn opens or rewrites it.
 */

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** `mkdir -p` whose new folders (every level it creates) are 0700. */
export function makePrivateDirSync(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** `mkdir -p` whose new folders (every level it creates) are 0700. */
export async function makePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Creates `path` empty with mode 0600 when it does not exist; an existing file is left as it is. */
export function createPrivateFileSync(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

/**
 * Takes the group and other bits off an existing file (0644 → 0600). Best effort: a file that is
 * gone, or that belongs to another user, is left alone (whoever owns it decides).
 */
export function tightenFileModeSync(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
  } catch {
    // Missing, or not ours to change.
  }
}
