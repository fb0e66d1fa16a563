import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * No secret value of a connected credential ever leaves its sealed form: the real `cairn serve`
 * (built files), a key connected over HTTP for a user, that user's workflows with an AI node on a
 * local Messages API server (one completes, one fails, one is cancelled), and then every response
 * body, the processes' log output, every event row, every file under $CAIRN_HOME (artifacts
 * included) and the database file and its WAL are searched for the key.
 */

const KEY = 'sk-ant-scan-RECOGNISABLE-c0ffee42d00d';
const user = { 'x-service-user': 'ann' };

let home: TempHome;
let api: AnthropicServer;
let server: RunningServer;
let release!: () => void;
const bodies: string[] = [];

async function call(path: string, init: { method?: string; body?: unknown } = {}): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...user, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  bodies.push(text);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const workflow = (name: string, prompt: string) => `name: ${name}
description: an AI node, then a bash node that prints its environment
provider: anthropic
nodes:
  - id: ask
    prompt: ${prompt}
  - id: env
    depends_on: [ask]
    trigger_rule: all_done
    bash: env
`;

async function ended(runId: string, statuses: string[]): Promise<any> {
  return waitFor(async () => {
    const detail = await call(`/api/workflows/runs/${runId}`);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to end` });
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

beforeEach(async () => {
  home = await makeTempHome();
  const held = new Promise<void>((resolve) => (release = resolve));
  api = await startAnthropicServer((req) => {
    const prompt = req.body.messages[0].content as string;
    if (prompt === 'fail') return { kind: 'error', status: 400, type: 'invalid_request_error', message: 'refused' };
    if (prompt === 'hold') return { kind: 'stream', blocks: [{ type: 'text', text: 'late' }], heldUntil: held };
    return { kind: 'stream', blocks: [{ type: 'text', text: 'fine' }] };
  });
  home.defer(() => api.close());
  home.defer(() => release());
  await writeHomeWorkflow(home, 'scan-ok', workflow('scan-ok', 'hello'));
  await writeHomeWorkflow(home, 'scan-fail', workflow('scan-fail', 'fail'));
  await writeHomeWorkflow(home, 'scan-cancel', workflow('scan-cancel', 'hold'));
  // The install has a key of its own; the user's connected key is the one under watch.
  server = await startServer(home, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-install-key', CAIRN_LOG_LEVEL: 'debug' });
});
afterEach(async () => {
  await home.close();
});

it('finds the connected key in no response, log line, event row, file or database page', async () => {
  expect(await call('/api/auth/providers/claude', { method: 'PUT', body: { apiKey: KEY, label: 'scan' } })).toEqual({
    success: true, provider: 'anthropic', kind: 'api_key', label: 'scan',
  });
  // Refusals quote what they refuse; a key sent with a bad vendor must not come back either.
  const refused = await fetch(`${server.url}/api/auth/providers/nope`, {
    method: 'PUT', headers: { ...user, 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }),
  });
  expect(refused.status).toBe(400);
  bodies.push(await refused.text());
  await call('/api/auth/providers');

  const ok = await call('/api/workflows/scan-ok/run', { method: 'POST', body: {} });
  const okEnd = await ended(ok.runId, ['completed', 'failed', 'cancelled']);
  expect(okEnd.run.status, JSON.stringify(okEnd.events.map((e: any) => e.data?.error ?? e.event_type))).toBe('completed');
  const failing = await call('/api/workflows/scan-fail/run', { method: 'POST', body: {} });
  expect((await ended(failing.runId, ['completed', 'failed', 'cancelled'])).run.status).toBe('failed');
  const cancelled = await call('/api/workflows/scan-cancel/run', { method: 'POST', body: {} });
  await waitFor(() => api.requests.some((r) => r.body.messages[0].content === 'hold'), { what: 'the held call' });
  await call(`/api/workflows/runs/${cancelled.runId}/cancel`, { method: 'POST' });
  expect((await ended(cancelled.runId, ['cancelled'])).run.status).toBe('cancelled');
  release();

  // The runs were the user's: every call went out with the user's key, not the install's.
  expect(api.requests.length).toBeGreaterThanOrEqual(3);
  for (const request of api.requests) expect(request.headers['x-api-key']).toBe(KEY);

  const runIds = [ok.runId, failing.runId, cancelled.runId];
  for (const runId of runIds) {
    const detail = await call(`/api/workflows/runs/${runId}`);
    expect(detail.events.length).toBeGreaterThan(0);
    await call(`/api/workflows/runs/${runId}/logs`);
    await call(`/api/runs/${runId}/artifacts`);
  }
  await call('/api/dashboard/runs');
  await call('/api/workflows/runs');
  await call(`/api/auth/providers/anthropic`, { method: 'DELETE' });
  await call('/api/auth/providers');

  // The bash node ran and printed its environment (so the scan would see a key handed to it).
  const okEvents = (await call(`/api/workflows/runs/${ok.runId}`)).events;
  expect(JSON.stringify(okEvents)).toContain('PATH=');

  expect(bodies.length).toBeGreaterThan(15);
  for (const body of bodies) expect(body).not.toContain(KEY);
  await server.stop();
  expect(server.output()).toContain('credentials.connected');
  expect(server.output()).not.toContain(KEY);

  const store = home.openStore();
  for (const runId of runIds) expect(JSON.stringify(await store.listRunEvents(runId))).not.toContain(KEY);
  const needles = [Buffer.from(KEY), Buffer.from(KEY, 'utf16le'), Buffer.from(Buffer.from(KEY).toString('base64'))];
  const files = await filesUnder(home.home);
  expect(files).toContain(home.paths.database);
  for (const file of files) {
    const bytes = await readFile(file);
    for (const needle of needles) expect(bytes.includes(needle), file).toBe(false);
  }
});
