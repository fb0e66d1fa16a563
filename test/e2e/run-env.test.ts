import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The built server and a real supervisor: `config.env` values are sealed in the run's metadata,
 * reach the run's bash nodes (on the first pass and, unchanged, after a resume), and the plain
 * value is nowhere else: not in any answer, event row, stream frame, log line or database byte.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const workflow = [
  'name: env-secret',
  'description: writes its secret to a file, twice',
  'nodes:',
  '  - id: write',
  '    bash: printf %s "$THE_VAR" > "$ARTIFACTS_DIR/first.txt" && printf %s "$MULTI" > "$ARTIFACTS_DIR/multi.txt"',
  '  - id: gate',
  '    bash: test -f "$ARTIFACTS_DIR/pass" || exit 1',
  '    depends_on: [write]',
  '  - id: again',
  '    bash: printf %s "$THE_VAR" > "$ARTIFACTS_DIR/second.txt"',
  '    depends_on: [gate]',
].join('\n');

it('sets config.env in the run’s nodes, reuses it on resume, and never shows the value', async () => {
  const server = await startServer(home, { CAIRN_LOG_LEVEL: 'debug' });
  await writeHomeWorkflow(home, 'env-secret', workflow);
  const secret = `cairn-test-secret-${randomBytes(12).toString('hex')}`;
  const answers: string[] = [];
  const read = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${server.url}${path}`, init);
    const text = await res.text();
    answers.push(text);
    return { status: res.status, json: () => JSON.parse(text) as Record<string, any> };
  };

  const started = await read('/api/workflows/env-secret/run', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'go', config: { env: { THE_VAR: secret, MULTI: 'line one\nline two' } } }),
  });
  expect(started.status).toBe(200);
  const { runId, conversationId } = started.json() as { runId: string; conversationId: string };
  const stream = await openSse(`${server.url}/api/stream/${conversationId}`, { lastEventId: 0 });
  home.defer(() => stream.close());

  const failed = await waitFor(async () => {
    const detail = (await read(`/api/workflows/runs/${runId}`)).json();
    return detail.run.status === 'failed' ? detail : undefined;
  }, { what: 'the run to stop at its gate', timeoutMs: 45_000 });
  const artifacts = home.paths.runArtifacts(runId);
  expect(await readFile(join(artifacts, 'first.txt'), 'utf8')).toBe(secret);
  expect(await readFile(join(artifacts, 'multi.txt'), 'utf8')).toBe('line one\nline two');
  expect(failed.run.metadata.overrides.env_names).toEqual(['THE_VAR', 'MULTI']);
  expect(failed.run.metadata.sealed_env).toBeUndefined();

  // Resume: the sealed values are opened again, unchanged.
  await writeFile(join(artifacts, 'pass'), '');
  expect((await read(`/api/workflows/runs/${runId}/resume`, { method: 'POST' })).status).toBe(200);
  await waitFor(async () => {
    const detail = (await read(`/api/workflows/runs/${runId}`)).json();
    return detail.run.status === 'completed' ? detail : undefined;
  }, { what: 'the resumed run to complete', timeoutMs: 45_000 });
  expect(await readFile(join(artifacts, 'second.txt'), 'utf8')).toBe(secret);

  // Every other read of the run.
  await read('/api/workflows/runs');
  await read(`/api/workflows/runs?conversationId=${conversationId}`);
  await read('/api/dashboard/runs');
  await read('/api/dashboard/runs?search=env-secret');
  await read(`/api/workflows/runs/by-worker/${conversationId}`);
  await read(`/api/workflows/runs/${runId}/logs`);
  await read(`/api/runs/${runId}/artifacts`);
  for (const answer of answers) expect(answer).not.toContain(secret);

  await stream.until((frames) => frames.some((f) => f.data.eventType === 'workflow_completed'), 15_000);
  expect(JSON.stringify(stream.frames)).not.toContain(secret);

  // The stored run: ciphertext only.
  const store = home.openStore();
  const run = await store.getRun(runId);
  expect(run?.metadata.sealed_env).toMatch(/^cairn:v1:[0-9a-f]{12}:/);
  expect(JSON.stringify(run)).not.toContain(secret);
  expect(JSON.stringify(await store.listRunEvents(runId))).not.toContain(secret);

  await server.stop();
  expect(server.output()).not.toContain(secret);
  const dbDir = join(home.home, 'db');
  for (const file of await readdir(dbDir)) {
    const bytes = await readFile(join(dbDir, file));
    expect(bytes.includes(Buffer.from(secret)), `${file} holds the secret`).toBe(false);
  }
});
