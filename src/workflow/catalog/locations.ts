import { join } from 'node:path';
import { packagePath } from '../../shared/package-root.js';
import { homePaths } from '../../shared/paths.js';
import type { WorkflowSource } from '../../shared/workflow-source.js';

/**
 * Where workflows and commands are found, scope by scope, in lookup order:
 *   project  `<cwd>/.cairn/{workflows,commands}/`, then `<cwd>/.archon/...` (read-only, for users
 *            of the upstream system; `.cairn/` wins when both hold the same file name)
 *   global   `$CAIRN_HOME/{workflows,commands}/`
 *   bundled  the package's own `workflows/` and `commands/` folders
 */


/** Project folders, highest precedence first. Cairn writes only to the first. */
export const projectFolders = ['.cairn', '.archon'] as const;

export interface ScopeDir {
  source: WorkflowSource;
  dir: string;
  /** How messages name the folder, e.g. `.archon/workflows`. */
  label: string;
  /** Cairn never writes or deletes here (`.archon/` folders and the bundled set). */
  readOnly: boolean;
}

export interface CatalogLocations {
  /** `CAIRN_HOME`. */
  home: string;
  bundledWorkflowsDir: string;
  bundledCommandsDir: string;
}

export function defaultLocations(home: string): CatalogLocations {
  return {
    home,
    bundledWorkflowsDir: packagePath('workflows'),
    bundledCommandsDir: packagePath('commands'),
  };
}

function scopeDirs(
  kind: 'workflows' | 'commands',
  locations: CatalogLocations,
  cwd: string | undefined,
  includeBundled: boolean,
): ScopeDir[] {
  const dirs: ScopeDir[] = [];
  if (cwd) {
    for (const folder of projectFolders) {
      dirs.push({ source: 'project', dir: join(cwd, folder, kind), label: `${folder}/${kind}`, readOnly: folder !== '.cairn' });
    }
  }
  dirs.push({ source: 'global', dir: homePaths(locations.home)[kind], label: `$CAIRN_HOME/${kind}`, readOnly: false });
  if (includeBundled) {
    const dir = kind === 'workflows' ? locations.bundledWorkflowsDir : locations.bundledCommandsDir;
    dirs.push({ source: 'bundled', dir, label: `bundled ${kind}`, readOnly: true });
  }
  return dirs;
}

export function workflowScopeDirs(locations: CatalogLocations, cwd: string | undefined, includeBundled: boolean): ScopeDir[] {
  return scopeDirs('workflows', locations, cwd, includeBundled);
}

export function commandScopeDirs(locations: CatalogLocations, cwd: string | undefined, includeBundled: boolean): ScopeDir[] {
  return scopeDirs('commands', locations, cwd, includeBundled);
}
