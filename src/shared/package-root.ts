import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the package's own files are: its `package.json`, `bin/`, `workflows/`, `commands/`,
 * `node_modules/` and the built `dist/`.
 *
 * Found by walking up from this module to the first folder that holds a `package.json`, so it is
 * the same whether this code runs from `src/shared/` (tsx, tests), from `dist/<entry>.js` or from
 * a bundled chunk in `dist/chunks/` (the build bundles each process into a few files; a path
 * written relative to a module's own location would break once the module is moved into a chunk).
 */
function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`cannot find the package root: no package.json above ${start}`);
  }
}

const here = dirname(fileURLToPath(import.meta.url));

export const packageRoot = findPackageRoot(here);

/** A path inside the package: `packagePath('workflows')`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot, ...parts);
}

/** A built file, relative to `dist/`: `builtPath('api/main.js')`. */
export function builtPath(relative: string): string {
  return join(packageRoot, 'dist', relative);
}

/** True when this code runs from the build (`dist/`), false when from sources (tsx, vitest). */
export const runsFromBuild = (here + sep).startsWith(join(packageRoot, 'dist') + sep);
