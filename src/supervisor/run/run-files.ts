import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from '../../shared/log.js';
import { makePrivateDirSync, PRIVATE_FILE_MODE } from '../../shared/private-files.js';
import type { CapturedFile, RunFileCapture, Store } from '../../store/store.js';
import type { Run } from '../../store/schemas/run.js';
import { newRunLevelEvent, readRunLevelEventData } from '../../store/schemas/run-level-events.js';
import type { RunEvent } from '../../store/schemas/event.js';
import { scriptKey } from '../../workflow/catalog/referenced-files.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import { captureRunFileSet, reloadChanges, type RunFileDirs } from './run-file-capture.js';

/** A command's text, or why a node naming it fails. */
export type CommandText = { ok: true; text: string } | { ok: false; message: string };

/**
 * A run's command files and scripts as its copy holds them: what its nodes read instead of the
 * disk. A name the copy does not hold (a definition stored by a resume an older version queued,
 * with no copy taken of it) is read from disk, as before runs kept copies.
 */
export interface RunFiles {
  /** The command's text as the copy holds it; undefined when the copy does not hold the name. */
  command(name: string): CommandText | undefined;
  /**
   * The file a bun or uv script body runs as: the copy's, written under the run's folder; null
   * when the copy found no file of that name (the body runs as code); undefined when the copy
   * does not know the body.
   */
  scriptFile(source: string, runtime: 'bun' | 'uv'): string | null | undefined;
}

/**
 * Whether the run's latest resume asked to reload (`workflow_resumed` with `reload: true`) and its
 * copy has not been made again since (no `workflow_reloaded` after it): read from the events, so a
 * resume that waited for a place, or whose supervisor stopped before the copy, still reloads.
 */
export function isReloadDue(events: readonly RunEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.event_type === 'workflow_reloaded') return false;
    if (event.event_type === 'workflow_resumed') return readRunLevelEventData(event, 'workflow_resumed')?.reload === true;
  }
  return false;
}

const reloadHint = 'the run uses the copy of its files taken when it started; resume it with reload to take them as they are now';

/**
 * The run's copy of its files, made now when the run has none (it is starting) or when a resume
 * asked to `reload` (then with a `workflow_reloaded` event saying what changed), and read from the
 * store otherwise: editing or deleting the files on disk changes nothing for the run.
 */
export async function openRunFiles(
  store: Store,
  run: Run,
  definition: WorkflowDefinition,
  opts: { dirs: RunFileDirs; runFolder: string; reload: boolean; log: Logger },
): Promise<RunFiles> {
  const stored = await store.getRunFiles(run.id);
  let capture = stored;
  if (!stored || opts.reload) {
    capture = captureRunFileSet(definition, opts.dirs);
    const events = opts.reload ? [newRunLevelEvent(run, 'workflow_reloaded', reloadChanges(stored, capture))] : [];
    await store.captureRunFiles({ runId: run.id, ...capture, events });
    opts.log.info({ files: capture.files.length, reload: opts.reload }, 'run.files_captured');
  }
  return runFilesOf(capture!, join(opts.runFolder, 'scripts'));
}

function runFilesOf(capture: RunFileCapture, scriptsDir: string): RunFiles {
  const byKey = new Map(capture.files.map((f) => [`${f.kind}:${f.name}`, f]));
  return {
    command(name) {
      const file = byKey.get(`command:${name}`);
      if (!file) return undefined;
      if (file.content === null) {
        return { ok: false, message: `Command not found: ${name}.md (${reloadHint})` };
      }
      if (file.content.trim() === '') return { ok: false, message: `Command file is empty: ${name}.md (${reloadHint})` };
      return { ok: true, text: file.content };
    },
    scriptFile(source, runtime) {
      const file = byKey.get(`script:${scriptKey({ source, runtime })}`);
      return file ? scriptPathOf(file, scriptsDir) : undefined;
    },
  };
}

/**
 * The file that holds the copy of a script: its own file while that still holds the copy's
 * content (so what it imports, beside it or from the project's packages, resolves as it always
 * did), else a file written from the copy under the run's folder, at a path made of its hash (a
 * reload's new content never overwrites an old one a node may be running) and its own file name
 * (its runtime sees the same extension). Null for a script the copy found no file of.
 */
function scriptPathOf(file: CapturedFile, scriptsDir: string): string | null {
  if (file.content === null || file.hash === null || file.path === null) return null;
  if (readIfThere(file.path) === file.content) return file.path;
  const dir = join(scriptsDir, file.hash.replace(/^sha256:/, '').slice(0, 16));
  const path = join(dir, basename(file.path));
  if (readIfThere(path) !== file.content) {
    makePrivateDirSync(dir);
    writeFileSync(path, file.content, { mode: PRIVATE_FILE_MODE });
  }
  return path;
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
