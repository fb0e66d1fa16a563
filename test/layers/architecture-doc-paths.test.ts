import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * docs/architecture.md is where a newcomer looks for the room of a change: every file it names
 * must exist, or the page sends them to a room that moved. A name with a folder is read from the
 * repository root when it starts with a top folder of the repository, else from `src/`; a bare
 * file name must be the name of some file under `src/`, `test/` or the root.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const named = [...new Set([...doc.matchAll(/`([A-Za-z0-9_./-]+\.(?:ts|cts|mts|js|cjs|mjs))`/g)].map((m) => m[1]!))];
const repoTops = new Set(readdirSync(root));

function filesUnder(dir: string, out: Set<string> = new Set()): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, out);
    else out.add(entry.name);
  }
  return out;
}

it('names only files that exist', () => {
  const names = new Set([...filesUnder(join(root, 'src')), ...filesUnder(join(root, 'test')), ...readdirSync(root)]);
  const missing = named.filter((name) => {
    if (!name.includes('/')) return !names.has(basename(name));
    const top = name.split('/')[0]!;
    return !existsSync(repoTops.has(top) ? join(root, name) : join(root, 'src', name));
  });
  expect(named.length).toBeGreaterThan(50);
  expect(missing).toEqual([]);
});
