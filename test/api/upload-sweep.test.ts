import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/log.js';
import { newUploadFolderName, sweepStaleUploads, UNOWNED_UPLOAD_GRACE_MS } from '../../src/api/run-files/upload-folders.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * An upload is received into a folder under $CAIRN_HOME/tmp/uploads/ named for the API that
 * receives it. An API killed mid-upload leaves its folder; the next API to start removes every
 * folder no live request can own, and keeps those of another live API on the same home.
 */

let home: TempHome;
let uploads: string;
beforeEach(async () => {
  home = await makeTempHome();
  uploads = join(home.home, 'tmp', 'uploads');
});
afterEach(async () => {
  await home.close();
});

function folder(name: string, modified?: Date): string {
  const path = join(uploads, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'notes.md'), 'half of a file');
  if (modified) utimesSync(path, modified, modified);
  return name;
}

const left = () => (existsSync(uploads) ? readdirSync(uploads).sort() : []);

it('removes the folders of gone or reused pids and its own pid, keeps a live owner’s, and old unowned ones go after the grace', async () => {
  const gone = spawnSync('true').pid!;
  const ownerGone = folder(newUploadFolderName(gone));
  // This test process is alive and started before the folder was written: another API, live.
  const liveOwner = folder(newUploadFolderName(process.pid));
  // Alive, but started after the folder was last written: the pid was reused, the owner is gone.
  const reused = folder(newUploadFolderName(process.pid).replace(String(process.pid), String(process.ppid)), new Date('2001-01-01'));
  const own = folder(newUploadFolderName(4_000_000));
  const oldUnowned = folder('0b9d3c52-5a0e-4c55-9d1e-4b4b2f6c1a10', new Date(Date.now() - UNOWNED_UPLOAD_GRACE_MS - 60_000));
  const freshUnowned = folder('7c0e9a52-1d3b-4f0e-9a8e-2b5d7f1c3e4a');

  const removed = await sweepStaleUploads(uploads, { log: silentLogger(), pid: 4_000_000 });
  expect(removed.sort()).toEqual([ownerGone, reused, own, oldUnowned].sort());
  expect(left()).toEqual([liveOwner, freshUnowned].sort());
});

it('answers an empty list when no upload was ever received', async () => {
  expect(await sweepStaleUploads(uploads, { log: silentLogger() })).toEqual([]);
});

it('a real API killed by kill -9 mid-upload leaves its folder, and the API the launcher starts again removes it', async () => {
  await writeHomeWorkflow(home, 'greet', 'name: greet\ndescription: d\nnodes:\n  - id: a\n    bash: echo hi\n');
  const server = await startServer(home);
  const apiPid = await server.pid('api');
  // A multipart run request whose file part never ends: the API is receiving it when it dies.
  const boundary = 'cairn-test-boundary';
  const req = request(`${server.url}/api/workflows/greet/run`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  req.write(`--${boundary}\r\ncontent-disposition: form-data; name="files"; filename="big.log"\r\ncontent-type: text/plain\r\n\r\n`);
  req.write('x'.repeat(64 * 1024));
  const [receiving] = await waitFor(() => {
    const names = left().filter((name) => readdirSync(join(uploads, name)).length > 0);
    return names.length ? names : undefined;
  }, { what: 'the API to receive the upload into its folder' });

  process.kill(apiPid, 'SIGKILL');
  await waitFor(async () => (await server.pid('api')) !== apiPid && (await fetch(`${server.url}/health`).then((r) => r.ok, () => false)), {
    what: 'the launcher to start the API again', timeoutMs: 30_000,
  });
  req.destroy();
  expect(left()).toEqual([]);
  expect(receiving).toMatch(new RegExp(`^${apiPid}-`));
});
