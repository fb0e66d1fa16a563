import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/**
 * Lists the files of a scope folder with the facts the caches key on. Walks the folder and its
 * direct subfolders (one level, as upstream), skipping names that start with `.`.
 */

export interface ListedFile {
  path: string;
  /** Path relative to the folder, with `/` separators: the override key across scopes. */
  relative: string;
  mtimeMs: number;
  size: number;
  /** Changes when a file is replaced by rename, as atomic saves do, even within one mtime tick. */
  ino: number;
}

export function listFiles(dir: string, accept: (name: string) => boolean): ListedFile[] {
  const files: ListedFile[] = [];
  for (const entry of readEntries(dir)) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      for (const inner of readEntries(join(dir, entry.name))) {
        if (!inner.name.startsWith('.') && isFile(inner) && accept(inner.name)) {
          pushFile(files, join(dir, entry.name, inner.name), `${entry.name}/${inner.name}`);
        }
      }
    } else if (isFile(entry) && accept(entry.name)) {
      pushFile(files, join(dir, entry.name), entry.name);
    }
  }
  return files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

export const isWorkflowFileName = (name: string): boolean => /\.ya?ml$/i.test(name);
export const isCommandFileName = (name: string): boolean => /\.md$/i.test(name);

function readEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Regular files, and symlinks (resolved when statted). */
function isFile(entry: Dirent): boolean {
  return entry.isFile() || entry.isSymbolicLink();
}

function pushFile(files: ListedFile[], path: string, relative: string): void {
  try {
    const stat = statSync(path);
    if (stat.isFile()) files.push({ path, relative, mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino });
  } catch {
    // Vanished between readdir and stat, or a dangling symlink: not a file to list.
  }
}
