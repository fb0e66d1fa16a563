import { statSync } from 'node:fs';
import { join } from 'node:path';
import { projectFolders } from '../../workflow/catalog/locations.js';

const extensions = { bun: ['.ts', '.js', '.mjs', '.cjs', '.tsx', '.jsx'], uv: ['.py'] } as const;

/** Whether a script body could name a script file (`echo-args`, `tool.py`): anything else is code. */
export function isScriptName(script: string): boolean {
  const name = script.trim();
  return /^[\w.-]+$/.test(name) && !name.startsWith('.');
}

/**
 * Resolves a `script:` that names a script file (`script: echo-args`) to its path: the
 * project's `.cairn/scripts/` then `.archon/scripts/`, then `$CAIRN_HOME/scripts/`, trying the
 * runtime's extensions. Anything else (inline code, or a name with no file) is left as it is:
 * the worker runs it as code.
 */
export function resolveScriptFile(
  script: string,
  runtime: 'bun' | 'uv',
  dirs: { cwd: string | null; homeScripts: string },
): string | undefined {
  const name = script.trim();
  if (!isScriptName(name)) return undefined;
  const folders = [
    ...(dirs.cwd ? projectFolders.map((folder) => join(dirs.cwd!, folder, 'scripts')) : []),
    dirs.homeScripts,
  ];
  const candidates = extensions[runtime].some((ext) => name.endsWith(ext))
    ? [name]
    : extensions[runtime].map((ext) => `${name}${ext}`);
  for (const folder of folders) {
    for (const candidate of candidates) {
      const path = join(folder, candidate);
      try {
        if (statSync(path).isFile()) return path;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
