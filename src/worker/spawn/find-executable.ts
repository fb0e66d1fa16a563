import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Found executables, per PATH value. Only hits are cached: a runtime installed while the
 * server runs is found on the next attempt, and one removed fails that attempt's spawn.
 */
const found = new Map<string, string>();

/** Looks `name` up on a PATH string the way a shell would; undefined when it is not there. */
export function findExecutable(name: string, pathEnv: string | undefined): string | undefined {
  if (isAbsolute(name)) return isFile(name) ? name : undefined;
  const key = `${name}\0${pathEnv ?? ''}`;
  const cached = found.get(key);
  if (cached) return cached;
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) {
      found.set(key, candidate);
      return candidate;
    }
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    // Any execute bit: we run as whoever owns the server; a precise access(2) check is not
    // worth a second syscall per directory, and spawn reports EACCES if we were wrong.
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
