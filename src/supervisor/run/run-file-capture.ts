import { readFileSync } from 'node:fs';
import { contentHash } from '../../shared/content-hash.js';
import type { CapturedFile, RunFileCapture } from '../../store/store.js';
import type { ReloadedFileData, WorkflowReloadedData } from '../../store/schemas/run-level-events.js';
import { loadCommand } from '../../workflow/catalog/commands.js';
import { defaultLocations } from '../../workflow/catalog/locations.js';
import { referencedFiles, scriptKey } from '../../workflow/catalog/referenced-files.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import { isScriptName, resolveScriptFile } from './script-files.js';

/** Where a run's nodes find their files: its project (its working path), and the Cairn home. */
export interface RunFileDirs {
  home: string;
  /** The run's working path as its row records it (null: a run with neither codebase nor cwd). */
  workingPath: string | null;
  homeScripts: string;
}

const found = (kind: CapturedFile['kind'], name: string, path: string | null, content: string): CapturedFile => ({
  kind, name, path, hash: contentHash(content), content,
});
const missing = (kind: CapturedFile['kind'], name: string): CapturedFile => ({ kind, name, path: null, hash: null, content: null });

/**
 * Reads, as they are on disk now, the files the definition's nodes name, where those nodes would
 * look for them (the same lookups as at run time): each command file (one not found, or not
 * readable, is kept as not found: the node fails saying so), and each script body that could name
 * a script file (kept as not found when no file has that name: the body then runs as code).
 */
export function captureRunFileSet(definition: WorkflowDefinition, dirs: RunFileDirs): RunFileCapture {
  const wanted = referencedFiles(definition);
  const files: CapturedFile[] = [];
  for (const name of wanted.commands) {
    const loaded = loadCommand(defaultLocations(dirs.home), dirs.workingPath ?? undefined, name);
    if (loaded.ok) files.push(found('command', name, loaded.path, loaded.text));
    else if (loaded.reason === 'empty') files.push(found('command', name, null, ''));
    else files.push(missing('command', name));
  }
  for (const script of wanted.scripts) {
    if (!isScriptName(script.source)) continue; // code, never a file: the definition holds it
    const path = resolveScriptFile(script.source, script.runtime, { cwd: dirs.workingPath, homeScripts: dirs.homeScripts });
    if (path === undefined) {
      files.push(missing('script', scriptKey(script)));
      continue;
    }
    try {
      files.push(found('script', scriptKey(script), path, readFileSync(path, 'utf8')));
    } catch {
      files.push(missing('script', scriptKey(script)));
    }
  }
  return { workflowHash: definitionHash(definition), files };
}

/** The hash of a definition: of its JSON, as the run stores it. */
export function definitionHash(definition: unknown): string {
  return contentHash(JSON.stringify(definition));
}

/** What a reload changed: the definition's hashes, and each file whose content changed, appeared or went. */
export function reloadChanges(before: RunFileCapture | undefined, after: RunFileCapture): WorkflowReloadedData {
  const key = (f: Pick<CapturedFile, 'kind' | 'name'>) => `${f.kind}\u0000${f.name}`;
  const old = new Map((before?.files ?? []).map((f) => [key(f), f]));
  const now = new Map(after.files.map((f) => [key(f), f]));
  const changed: ReloadedFileData[] = [];
  for (const k of [...new Set([...old.keys(), ...now.keys()])].sort()) {
    const [a, b] = [old.get(k), now.get(k)];
    const was = a?.hash ?? null;
    const is = b?.hash ?? null;
    if (was !== is) changed.push({ kind: (a ?? b)!.kind, name: (a ?? b)!.name, before: was, after: is });
  }
  return { workflow: { before: before?.workflowHash ?? null, after: after.workflowHash }, changed };
}
