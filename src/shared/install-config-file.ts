import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isMap, parseDocument, type Document } from 'yaml';
import { CairnError } from './errors.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/**
 * Edits of the install config file (`$CAIRN_HOME/config.yaml`) from the API: the file is read as
 * a YAML document (comments, key order and keys Cairn does not know survive), changed, and
 * written to a temporary file beside it that is then renamed over it, so a reader sees the old
 * file or the new one, never half of one. Edits within one process are applied one at a time.
 */

export type ConfigPath = readonly string[];
export type ConfigEdit = { path: ConfigPath; value: unknown } | { path: ConfigPath; remove: true };

const queues = new Map<string, Promise<unknown>>();

export function editInstallConfig(file: string, edits: readonly ConfigEdit[]): Promise<void> {
  const previous = queues.get(file) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => applyEdits(file, edits));
  queues.set(file, next);
  void next.finally(() => {
    if (queues.get(file) === next) queues.delete(file);
  }).catch(() => undefined);
  return next;
}

async function applyEdits(file: string, edits: readonly ConfigEdit[]): Promise<void> {
  let text = '';
  // It may hold keys (assistants.<id>.apiKey): created 0600, and a rewrite keeps only the owner's bits.
  let mode = PRIVATE_FILE_MODE;
  try {
    text = await readFile(file, 'utf8');
    mode = (await stat(file)).mode & 0o700;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new CairnError('CONFIG_INVALID', `${file} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it by hand before changing settings through the API`);
  }
  if (doc.contents === null || doc.contents === undefined) doc.contents = doc.createNode({}) as never;
  if (!isMap(doc.contents)) throw new CairnError('CONFIG_INVALID', `${file} does not hold a mapping of settings; fix it by hand before changing settings through the API`);
  for (const edit of edits) {
    if ('remove' in edit) {
      if (!hasPath(doc, edit.path)) continue;
      doc.deleteIn(edit.path);
      pruneEmptyParents(doc, edit.path);
    } else {
      for (let depth = 1; depth < edit.path.length; depth++) {
        const parent = doc.getIn(edit.path.slice(0, depth), true);
        if (parent !== undefined && !isMap(parent)) doc.deleteIn(edit.path.slice(0, depth));
      }
      doc.setIn(edit.path, doc.createNode(edit.value));
    }
  }
  await makePrivateDir(dirname(file));
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, doc.toString(), { mode });
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** After removing `tiers.small`, a `tiers:` left empty goes too. */
function pruneEmptyParents(doc: Document, path: ConfigPath): void {
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parent = doc.getIn(path.slice(0, depth), true);
    if (isMap(parent) && parent.items.length === 0) doc.deleteIn(path.slice(0, depth));
    else return;
  }
}

/** Whether every step of `path` is a mapping holding the next key (deleteIn throws otherwise). */
function hasPath(doc: Document, path: ConfigPath): boolean {
  for (let depth = 1; depth < path.length; depth++) {
    if (!isMap(doc.getIn(path.slice(0, depth), true))) return false;
  }
  return doc.hasIn(path);
}
