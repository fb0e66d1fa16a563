import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Some gateways echo the API key they were sent in their error text, and a model or an agent
 * may print a configured secret. Cairn knows the keys it sends and the secrets configured for
 * it, and masks them in everything a provider says before it records anything: through the
 * real `cairn serve` and the real Anthropic adapter against a local stand-in that echoes the
 * key, neither the install's key, nor a user's connected key, nor a GitHub token in the
 * server's environment is found in any answer, stream frame, log line, event row or file.
 */

const INSTALL_KEY = 'sk-ant-install-ECHOED-5ecret0001';
const USER_KEY = 'sk-ant-user-ECHOED-5ecret0002';
const GH_TOKEN = 'ghp_configuredTokenECHOED0003';
const secrets = [INSTALL_KEY, USER_KEY, GH_TOKEN];
const user = { 'x-service-user': 'ann' };

let home: TempHome;
let vendor: AnthropicServer;
let server: RunningServer;
let dashboard: SseClient;
const bodies: string[] = [];

async function call(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  bodies.push(text);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function ended(runId: string): Promise<any> {
  return waitFor(async () => {
    const detail = await call(`/api/workflows/runs/${runId}`);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 30_000 });
}

beforeEach(async () => {
  home = await makeTempHome();
  vendor = await startAnthropicServer((req) => {
    const key = String(req.headers['x-api-key']);
    if (req.body.messages[0].content === 'fail') {
      // What some gateways answer: the key they were sent, in the error text.
      return { kind: 'error', status: 401, type: 'authentication_error', message: `invalid x-api-key: ${key}` };
    }
    // A model that repeats what it saw, cut so that each secret spans two stream deltas.
    const said = `the key is ${key} and the token is ${GH_TOKEN}.`;
    const cuts = [0, said.indexOf(key) + 5, said.indexOf(GH_TOKEN) + 7, said.length];
    return { kind: 'stream', blocks: cuts.slice(1).map((end, i) => ({ type: 'text' as const, text: said.slice(cuts[i], end) })) };
  });
  home.defer(() => vendor.close());
  const workflow = (name: string, prompt: string) => `name: ${name}\ndescription: one AI node\nprovider: anthropic\nnodes:\n  - id: ask\n    prompt: ${prompt}\n`;
  await writeHomeWorkflow(home, 'echo-fail', workflow('echo-fail', 'fail'));
  await writeHomeWorkflow(home, 'echo-say', workflow('echo-say', 'say'));
  server = await startServer(home, {
    ANTHROPIC_BASE_URL: vendor.url, ANTHROPIC_API_KEY: INSTALL_KEY, GH_TOKEN, CAIRN_LOG_LEVEL: 'debug',
  });
  dashboard = await openSse(`${server.url}/api/stream/__dashboard__`);
  home.defer(() => dashboard.close());
});
afterEach(async () => {
  await home.close();
});

it('masks the echoed keys and configured secrets in node errors, outputs, run details, streams, logs and the database', async () => {
  await call('/api/auth/providers/anthropic', { method: 'PUT', body: { apiKey: USER_KEY, label: 'mine' }, headers: user });
  const runs = [
    await call('/api/workflows/echo-fail/run', { method: 'POST', body: {} }),
    await call('/api/workflows/echo-fail/run', { method: 'POST', body: {}, headers: user }),
    await call('/api/workflows/echo-say/run', { method: 'POST', body: {} }),
    await call('/api/workflows/echo-say/run', { method: 'POST', body: {}, headers: user }),
  ].map((r) => r.runId as string);
  const details = [];
  for (const runId of runs) details.push(await ended(runId));

  // The keys really went out, and really came back: the install's for a run without a user, ann's for hers.
  expect(vendor.requests.map((r) => r.headers['x-api-key'])).toEqual([INSTALL_KEY, USER_KEY, INSTALL_KEY, USER_KEY]);
  expect(details.map((d) => d.run.status)).toEqual(['failed', 'failed', 'completed', 'completed']);
  for (const detail of details.slice(0, 2)) {
    const failed = detail.events.find((e: any) => e.event_type === 'node_failed');
    expect(failed.data.error).toContain('invalid x-api-key: [redacted]');
  }
  for (const detail of details.slice(2)) {
    const completed = detail.events.find((e: any) => e.event_type === 'node_completed');
    expect(completed.data.node_output).toBe('the key is [redacted] and the token is [redacted].');
  }
  await dashboard.until((frames) => runs.every((id) => frames.some((f) => f.data.runId === id && f.data.type === 'workflow_status' && f.data.eventType !== 'workflow_started')));
  const failedFrames = dashboard.frames.filter((f) => f.data.eventType === 'node_failed');
  expect(failedFrames.length).toBe(2);
  for (const frame of failedFrames) expect(frame.data.error).toContain('[redacted]');

  for (const runId of runs) {
    await call(`/api/workflows/runs/${runId}/logs`);
    const replay = await openSse(`${server.url}/api/stream/${details[runs.indexOf(runId)].run.conversation_id}`, { lastEventId: 0 });
    await replay.until((frames) => frames.some((f) => f.data.type === 'workflow_status' && f.data.eventType !== 'workflow_started')).catch(() => undefined);
    bodies.push(JSON.stringify(replay.frames));
    replay.close();
  }
  await call('/api/dashboard/runs');
  bodies.push(JSON.stringify(dashboard.frames));

  for (const body of bodies) for (const secret of secrets) expect(body).not.toContain(secret);
  await server.stop();
  for (const secret of secrets) expect(server.output()).not.toContain(secret);
  const store = home.openStore();
  for (const runId of runs) for (const secret of secrets) expect(JSON.stringify(await store.listRunEvents(runId))).not.toContain(secret);
  const files = (await readdir(home.home, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  expect(files).toContain(home.paths.database);
  for (const file of files) {
    const bytes = await readFile(file);
    for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), `${secret} in ${file}`).toBe(false);
  }
});
