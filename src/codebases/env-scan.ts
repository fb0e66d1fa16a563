import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvScan } from '../store/schemas/codebase.js';
import { isSecretLookingKey } from '../shared/secret-mask.js';

/** `NAME=`, `export NAME=`, `NAME: ` (the forms dotenv and direnv read). Only the name is captured. */
const assignment = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]/;

/**
 * Scans the `.env*` files at the root of a checkout for keys that look like secrets. Only key
 * names leave this function: each line's value is never kept, returned or logged. Files below
 * the root are not scanned (tools load the root's).
 */
export async function scanEnvFiles(dir: string, now: () => string): Promise<EnvScan> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.startsWith('.env'))
    .map((entry) => entry.name)
    .sort();
  const keys = new Set<string>();
  let unreadable = false;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(join(dir, file), 'utf8');
    } catch {
      unreadable = true;
      continue;
    }
    for (const line of text.split(/\r?\n/)) {
      const name = assignment.exec(line)?.[1];
      if (name && isSecretLookingKey(name)) keys.add(name);
    }
  }
  const status = unreadable ? 'error' : keys.size > 0 ? 'keys_found' : 'clean';
  return { status, files, keys: [...keys].sort(), scanned_at: now() };
}
