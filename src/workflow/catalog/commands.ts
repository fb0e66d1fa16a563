import { readFileSync } from 'node:fs';
import { isValidCommandName } from '../schema/command-name.js';
import { listFiles, isCommandFileName } from './list-files.js';
import type { WorkflowSource } from '../../shared/workflow-source.js';
import { commandScopeDirs, type CatalogLocations } from './locations.js';
import { readProjectWorkflowSettings, type ConfigFileCache } from '../project/project-config.js';

/**
 * Command files: `<name>.md` in a `commands/` folder of the project (`.cairn/`, then `.archon/`,
 * each with one level of subfolders such as `defaults/`), of `$CAIRN_HOME`, or bundled. The
 * first hit in that order wins. A `command:` node's prompt is the whole file.
 */

export interface CommandEntry {
  name: string;
  source: WorkflowSource;
  path: string;
}

/** Every command visible from `cwd`, one per name (highest scope wins), sorted by name. */
export function listCommands(locations: CatalogLocations, cwd: string | undefined, configCache?: ConfigFileCache): CommandEntry[] {
  const { includeBundledCommands } = readProjectWorkflowSettings(cwd, configCache);
  const byName = new Map<string, CommandEntry>();
  for (const scope of commandScopeDirs(locations, cwd, includeBundledCommands)) {
    for (const file of listFiles(scope.dir, isCommandFileName)) {
      const name = file.relative.split('/').at(-1)!.replace(/\.md$/i, '');
      if (!byName.has(name)) byName.set(name, { name, source: scope.source, path: file.path });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export type CommandLoad =
  | { ok: true; name: string; text: string; source: WorkflowSource; path: string }
  | { ok: false; reason: 'invalid_name' | 'not_found' | 'empty' | 'unreadable'; message: string };

/** Loads the prompt of a `command:` node. Every failure is a value whose message fails the node. */
export function loadCommand(
  locations: CatalogLocations,
  cwd: string | undefined,
  name: string,
  configCache?: ConfigFileCache,
): CommandLoad {
  if (!isValidCommandName(name)) {
    return { ok: false, reason: 'invalid_name', message: `Invalid command name (potential path traversal): ${name}` };
  }
  const entry = listCommands(locations, cwd, configCache).find((c) => c.name === name);
  if (!entry) {
    return {
      ok: false,
      reason: 'not_found',
      message: `Command not found: ${name}.md (looked in .cairn/commands, .archon/commands, $CAIRN_HOME/commands and the bundled commands)`,
    };
  }
  let text: string;
  try {
    text = readFileSync(entry.path, 'utf8');
  } catch (err) {
    return { ok: false, reason: 'unreadable', message: unreadableMessage(name, err) };
  }
  if (text.trim() === '') return { ok: false, reason: 'empty', message: `Command file is empty: ${name}.md` };
  return { ok: true, name, text, source: entry.source, path: entry.path };
}

/** The failure text for a command file that exists but cannot be read. */
export function unreadableMessage(name: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (err as Error).message;
  return `Cannot read command file ${name}.md: ${why}`;
}
