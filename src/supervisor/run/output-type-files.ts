import { createHash, randomUUID } from 'node:crypto';
import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The files of a node with `output_type` (upstream's node sidecar): its output as
 * `$ARTIFACTS_DIR/nodes/<path>.md` and `<path>.meta.json` beside it. A nested node's path
 * (`fix/test`, `each[1]/say`) becomes folders under `nodes/`, one per segment, so the names stay
 * readable in the run's artifacts listing and fetchable by the artifacts route.
 */

/** The folder of `$ARTIFACTS_DIR` the files are written in. */
export const OUTPUT_TYPE_FOLDER = 'nodes';

/** What `<path>.meta.json` holds (upstream's fields). */
export interface OutputTypeMeta {
  outputType: string;
  runId: string;
  /** When the files were written (ISO 8601). */
  producedAt: string;
  /** Bytes of the `.md` file (UTF-8). */
  size: number;
  /** The provider session of an AI node that has one. */
  sessionId?: string;
}

/** A segment as a node path gives it: a node id (loader rule), optionally an instance's `[ordinal]`. */
const segmentPattern = /^[A-Za-z0-9_][A-Za-z0-9_-]*(\[(0|[1-9]\d*)\])?$/;

/** Longest segment kept whole: `<segment>.meta.json` must fit a file name (255 bytes). */
const MAX_SEGMENT = 200;
const HASH_CHARS = 16;

/**
 * The file name parts of a node path under `nodes/`, or undefined when a segment is not a node id
 * (with its ordinal): `.`, `..`, a dot-name, a backslash, anything that could leave the folder
 * or hide from the listing. Node ids are validated when a workflow loads; this holds the line
 * anyway. A segment longer than MAX_SEGMENT (an id composed by include expansion) is shortened
 * to its start, `~` and a hash of the whole.
 */
export function outputFileSegments(path: string): string[] | undefined {
  const segments = path.split('/');
  if (!segments.every((s) => segmentPattern.test(s))) return undefined;
  return segments.map((s) =>
    s.length <= MAX_SEGMENT ? s : `${s.slice(0, MAX_SEGMENT - HASH_CHARS - 1)}~${createHash('sha256').update(s).digest('hex').slice(0, HASH_CHARS)}`,
  );
}

/** `nodes/<path>.md` as the artifacts listing shows it. */
export function outputFileName(path: string): string {
  return `${OUTPUT_TYPE_FOLDER}/${(outputFileSegments(path) ?? [path]).join('/')}.md`;
}

export interface OutputTypeWrite {
  artifactsDir: string;
  /** The node's path in the run. */
  path: string;
  outputType: string;
  runId: string;
  output: string;
  sessionId?: string;
}

/**
 * Writes `<path>.md`, then `<path>.meta.json`, each through a temporary file renamed over the
 * name: a file already there (an earlier run of the node, before a resume) is replaced whole, and
 * a symlink a node left at the name is replaced, never followed. A folder on the way that
 * resolves elsewhere (a symlink a node planted) is refused. Throws on any failure.
 */
export async function writeOutputTypeFiles(input: OutputTypeWrite): Promise<OutputTypeMeta> {
  const segments = outputFileSegments(input.path);
  if (!segments) throw new Error(`node path '${input.path}' cannot name a file under ${OUTPUT_TYPE_FOLDER}/`);
  const root = await realpath(input.artifactsDir);
  const dir = join(root, OUTPUT_TYPE_FOLDER, ...segments.slice(0, -1));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await realpath(dir)) !== dir) throw new Error(`${OUTPUT_TYPE_FOLDER}/ or a folder in it is a link that leads elsewhere`);
  const base = segments.at(-1)!;
  const body = Buffer.from(input.output, 'utf8');
  const meta: OutputTypeMeta = {
    outputType: input.outputType,
    runId: input.runId,
    producedAt: new Date().toISOString(),
    size: body.length,
    ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
  };
  await replaceFile(dir, `${base}.md`, body);
  await replaceFile(dir, `${base}.meta.json`, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

async function replaceFile(dir: string, name: string, data: Buffer | string): Promise<void> {
  // A dot-name: the listing skips it while it exists.
  const temp = join(dir, `.${name}.${randomUUID()}.tmp`);
  try {
    await writeFile(temp, data, { flag: 'wx', mode: 0o600 });
    await rename(temp, join(dir, name));
  } catch (err) {
    await rm(temp, { force: true }).catch(() => {});
    throw err;
  }
}
