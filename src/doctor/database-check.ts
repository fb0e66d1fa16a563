import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import { failed, passed, warned, type CheckResult } from './check.js';
import type { DatabaseFile } from './database-look.js';
import { reachUrl } from './reach-url.js';

/**
 * Whether the database opens, answers a query and takes a write. With a server answering, its
 * `GET /health/db` says (it makes a real write); without one, the file is opened read-only and
 * asked a query, and the write is judged by the file's permissions only: the doctor writes to
 * no database that no server holds.
 */

const ID = 'database';
const NAME = 'database';

export interface DatabaseInput {
  path: string;
  file: DatabaseFile;
  /** The URL of a server that answered /api/health. */
  server: string | undefined;
}

export async function checkDatabase(input: DatabaseInput): Promise<CheckResult> {
  if (input.server !== undefined) {
    const through = await throughServer(input.server, input.path);
    if (through) return through;
  }
  return fromFile(input.path, input.file, input.server);
}

async function throughServer(url: string, path: string): Promise<CheckResult | undefined> {
  const reach = await reachUrl(`${url}/health/db`);
  if (!reach.ok) return undefined;
  let body: { database?: unknown; error?: unknown } = {};
  try {
    body = JSON.parse(reach.body) as typeof body;
  } catch {
    // Reported below as an answer the doctor does not understand.
  }
  if (reach.status === 200 && body.database === 'connected') {
    return passed(ID, NAME, `answers a query and takes a write (the server at ${url} says, GET /health/db)`);
  }
  const why = typeof body.error === 'string' ? body.error : `HTTP ${reach.status}, database ${String(body.database ?? 'unknown')}`;
  const next = /disk full|no space/i.test(why)
    ? `free space on the disk that holds ${dirname(path)}; the server takes writes again by itself`
    : 'look at the output of `cairn serve` for the database error, and at the disk that holds the home';
  return failed(ID, NAME, `the server at ${url} says it does not work (GET /health/db): ${why}`, next);
}

async function fromFile(path: string, file: DatabaseFile, server: string | undefined): Promise<CheckResult> {
  if (file.state === 'missing') {
    return warned(ID, NAME, `no database yet at ${path}`, '`cairn serve` creates it on its first start');
  }
  if (file.state === 'unreadable') {
    const notDatabase = file.code === 'SQLITE_NOTADB' || file.code === 'SQLITE_CORRUPT';
    const next = notDatabase
      ? `restore ${path} from a backup, or move it (with its -wal and -shm files) aside so that \`cairn serve\` makes a new one (what it held is then gone from Cairn)`
      : `make ${path} and its folder readable and writable by the user that runs \`cairn serve\` (chmod 600 ${path}), then run the doctor again`;
    return failed(ID, NAME, `${path} cannot be opened: ${file.message}${file.code ? ` (${file.code})` : ''}`, next);
  }
  const { schemaVersion, latestSchemaVersion } = file.look;
  if (schemaVersion > latestSchemaVersion) {
    return failed(ID, NAME, `${path} was written by a newer Cairn (schema version ${schemaVersion}; this one knows up to ${latestSchemaVersion})`,
      'run the Cairn that wrote it, or restore a backup this version wrote');
  }
  for (const target of [path, dirname(path)]) {
    try {
      await access(target, constants.W_OK);
    } catch {
      return failed(ID, NAME, `${target} is not writable by this user: the server could not record anything`,
        `make it writable by the user that runs \`cairn serve\` (chown, then chmod ${target === path ? '600' : '700'} ${target})`);
    }
  }
  const upgrade = schemaVersion < latestSchemaVersion ? `; \`cairn serve\` upgrades it to ${latestSchemaVersion} at start` : '';
  const why = server === undefined ? 'no server is running' : `the server at ${server} did not answer GET /health/db`;
  return passed(ID, NAME, `${path} opens read-only and answers a query (schema version ${schemaVersion}${upgrade}); writes are checked by its permissions only: ${why}`);
}
