import { rmdir } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { multipartForm } from '../helpers/multipart-form.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * `cairn serve` on a home that does not exist yet, with the usual umask (022): the home, and the
 * files it creates there that hold user data, are the user's alone (folders 0700, files 0600).
 */

let home: TempHome;
let umask: number;
beforeEach(async () => {
  home = await makeTempHome();
  umask = process.umask(0o022);
});
afterEach(async () => {
  process.umask(umask);
  await home.close();
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

it('creates the home 0700 and the database, WAL, key, run files, config and attachments 0600', async () => {
  await rmdir(home.home);
  const server = await startServer(home);
  const { paths } = home;
  for (const dir of [paths.home, join(paths.home, 'db'), paths.runDir]) expect(modeOf(dir), dir).toBe(0o700);
  const database = paths.database;
  for (const file of [database, `${database}-wal`, `${database}-shm`, paths.installKey, paths.serverFile, paths.apiPid, paths.supervisorPid]) {
    expect(modeOf(file), file).toBe(0o600);
  }

  const patched = await fetch(`${server.url}/api/config/assistants`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ assistant: 'codex' }),
  });
  expect(patched.status).toBe(200);
  expect(modeOf(paths.config)).toBe(0o600);

  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
  const started = await fetch(`${server.url}/api/workflows/plain/run`, {
    method: 'POST',
    body: multipartForm({ message: 'with a file' }, [{ name: 'notes.txt', bytes: 'private notes' }]),
  });
  expect(started.status).toBe(200);
  const { runId } = (await started.json()) as { runId: string };
  await waitFor(async () => {
    const detail = (await (await fetch(`${server.url}/api/workflows/runs/${runId}`)).json()) as { run: { status: string } };
    return detail.run.status === 'completed';
  }, { what: 'the run to complete', timeoutMs: 30_000 });
  const artifacts = paths.runArtifacts(runId);
  expect(modeOf(join(artifacts, 'attachments', 'notes.txt'))).toBe(0o600);
  for (const dir of [paths.runFolder(runId), artifacts, paths.scratch(runId)]) expect(modeOf(dir), dir).toBe(0o700);
});
