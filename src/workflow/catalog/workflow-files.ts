import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { z } from 'zod';
import { homePaths } from '../../shared/paths.js';
import { CairnError } from '../../shared/errors.js';
import { listFiles, isWorkflowFileName, type ListedFile } from './list-files.js';
import type { WorkflowSource } from '../../shared/workflow-source.js';
import { projectFolders, type CatalogLocations } from './locations.js';
import type { ParsedFile } from './discover-workflows.js';

/**
 * Writing and deleting user workflows. Writes go to `<cwd>/.cairn/workflows/` (source
 * `project`, the default) or `$CAIRN_HOME/workflows/` (source `global`); `.archon/` folders and
 * the bundled set are never changed. A save replaces the file atomically (temp file + rename),
 * so a reader sees the old file or the new one, never half of one.
 */

export const writableSourceSchema = z.enum(['project', 'global']);
export type WritableSource = z.infer<typeof writableSourceSchema>;

/** The `source` query parameter of save/delete; anything but project|global is refused. */
export function parseWritableSource(source: string | undefined): WritableSource {
  const parsed = writableSourceSchema.safeParse(source ?? 'project');
  if (!parsed.success) throw new CairnError('WORKFLOW_SOURCE_INVALID', 'Invalid workflow source');
  return parsed.data;
}

const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A workflow name usable as a file name: no separators, no `..`, no leading dot. */
export function assertSafeWorkflowName(name: string): void {
  if (!safeName.test(name) || name.includes('..')) {
    throw new CairnError(
      'WORKFLOW_INVALID',
      `Invalid workflow name '${name}': use letters, digits, '.', '_' and '-' (starting with a letter or digit)`,
    );
  }
}

/** The folders a source reads (highest precedence first) and the one it writes. */
export function sourceFolders(
  locations: CatalogLocations,
  source: WritableSource,
  cwd: string | undefined,
): { readable: { dir: string; label: string; writable: boolean }[]; writeDir: string } {
  if (source === 'global') {
    const dir = homePaths(locations.home).workflows;
    return { readable: [{ dir, label: '$CAIRN_HOME/workflows', writable: true }], writeDir: dir };
  }
  if (!cwd) throw new CairnError('CWD_INVALID', "A project workflow needs 'cwd' (the project's directory)");
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new CairnError('CWD_INVALID', `Invalid cwd: ${cwd} is not an existing directory`);
  const readable = projectFolders.map((folder) => ({
    dir: join(cwd, folder, 'workflows'),
    label: `${folder}/workflows`,
    writable: folder === '.cairn',
  }));
  return { readable, writeDir: readable[0]!.dir };
}

export interface FileOfName {
  path: string;
  relative: string;
  label: string;
  writable: boolean;
}

/** The files of a source's folders that declare workflow `name`. */
export function filesDeclaring(
  folders: ReturnType<typeof sourceFolders>['readable'],
  name: string,
  read: (file: ListedFile) => ParsedFile,
): FileOfName[] {
  return folders.flatMap(({ dir, label, writable }) =>
    listFiles(dir, isWorkflowFileName)
      .filter((file) => read(file).name === name)
      .map((file) => ({ path: file.path, relative: file.relative, label, writable })),
  );
}

/**
 * Where a save of `name` goes: over the writable file that already declares it; at the same
 * relative path as a read-only `.archon/` file declaring it (so the new file overrides that one
 * by file name instead of clashing with it by name); else `<name>.yaml`.
 */
export function chooseSavePath(writeDir: string, name: string, existing: readonly FileOfName[]): { path: string; relative: string } {
  const target = existing.find((f) => f.writable) ?? existing[0];
  const relative = target?.relative ?? `${name}.yaml`;
  return { path: join(writeDir, relative), relative };
}

/** Writes YAML to `path` atomically: `text` as it is when given (the definition's own YAML text), else the definition as YAML. */
export function writeWorkflowFile(path: string, definition: unknown, text?: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${randomUUID()}.tmp`);
  try {
    writeFileSync(temp, text ?? toYaml(definition, { lineWidth: 0 }), { encoding: 'utf8', flag: 'wx' });
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Deletes the writable files declaring `name`; refuses read-only and bundled ones. */
export function deleteWorkflowFiles(
  name: string,
  source: WorkflowSource,
  existing: readonly FileOfName[],
  isBundled: boolean,
): { filename: string } {
  const writable = existing.filter((f) => f.writable);
  if (writable.length === 0) {
    const readOnly = existing[0];
    if (readOnly) {
      throw new CairnError(
        'WORKFLOW_READ_ONLY',
        `Workflow '${name}' is in ${readOnly.label}/${readOnly.relative}, which Cairn reads but never changes; delete that file yourself`,
      );
    }
    if (isBundled) {
      throw new CairnError('WORKFLOW_READ_ONLY', `Workflow '${name}' is bundled with Cairn and cannot be deleted`);
    }
    throw new CairnError('WORKFLOW_NOT_FOUND', `Workflow not found: ${name}`, { source });
  }
  for (const file of writable) unlinkSync(file.path);
  return { filename: writable[0]!.relative };
}
