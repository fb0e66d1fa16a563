import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { CairnError } from '../shared/errors.js';

/**
 * The `cwd` of a run request: an absolute path to a directory that exists now. It becomes the
 * run's working directory and the project whose workflows are discovered. Checked before
 * anything is written, so a typo costs nothing.
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
