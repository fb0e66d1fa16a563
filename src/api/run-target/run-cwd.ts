import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { CairnError } from '../../shared/errors.js';

/**
 * The `cwd` query parameter: an absolute path to a directory that exists now. For a run it
 * becomes the working directory; for every workflow and command route it is the project whose
 * files are discovered. Checked before anything is written, so a typo costs nothing.
 */
export async function resolveRunCwd(cwd: string | undefined): Promise<string | undefined> {
  if (cwd === undefined) return undefined;
  if (!isAbsolute(cwd)) {
    throw new CairnError('CWD_INVALID', `Invalid cwd: '${cwd}' is not an absolute path`);
  }
  const path = resolve(cwd);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new CairnError('CWD_INVALID', `Invalid cwd: '${cwd}' is not an existing directory`);
  }
  return path;
}
