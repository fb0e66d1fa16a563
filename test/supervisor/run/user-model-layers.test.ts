import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { startAnthropicServer, type AnthropicServer } from '../../helpers/anthropic-server.js';
import { startSupervisor, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The model layers end to end: runs started through the real API (with and without
 * X-Service-User) and driven by a real supervisor against a local Anthropic server; the model
 * each node asked for shows which layer decided its tier.
 */

let home: TempHome;
let t: TestApp;
let server: AnthropicServer;
let supervisor: SupervisorHarness;
let project: string;

beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  server = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'ok' }] }));
  home.defer(() => server.close());
  writeFileSync(join(home.home, 'config.yaml'), 'tiers:\n  large: anthropic/install-large\n  small: anthropic/install-small\n');
  project = join(home.home, 'project');
  mkdirSync(join(project, '.cairn'), { recursive: true });
  writeFileSync(join(project, '.cairn', 'config.yaml'), 'tiers:\n  large: anthropic/repo-large\n  medium: anthropic/repo-medium\n');
  await writeHomeWorkflow(
    home,
    'tiers',
    [
      'name: tiers',
      'description: one node per tier',
      'provider: anthropic',
      'nodes:',
      '  - id: a',
      '    prompt: node-a',
      '    model: large',
      '  - id: b',
      '    prompt: node-b',
      '    model: medium',
      '  - id: c',
      '    prompt: node-c',
      '    model: small',
      '',
    ].join('\n'),
  );
  supervisor = await startSupervisor(home, { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-layers' } });
});
afterEach(async () => {
  await home.close();
});

async function runAndCollect(opts: { user?: string; cwd?: string; body?: Record<string, unknown> }): Promise<{ runId: string; models: Record<string, string> }> {
  const before = server.requests.length;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/workflows/tiers/run${opts.cwd ? `?cwd=${encodeURIComponent(opts.cwd)}` : ''}`,
    headers: { 'content-type': 'application/json', ...(opts.user ? { 'x-service-user': opts.user } : {}) },
    payload: JSON.stringify(opts.body ?? {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  const { runId } = res.json() as { runId: string };
  const run = await supervisor.waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  expect(run.status, run.error ?? '').toBe('completed');
  const models: Record<string, string> = {};
  for (const req of server.requests.slice(before)) {
    const node = /node-[abc]/.exec(JSON.stringify(req.body.messages))![0];
    models[node] = req.body.model as string;
  }
  return { runId, models };
}

it("a run started with X-Service-User binds that user's tiers over the repository's and the install's", async () => {
  const patched = await t.app.inject({
    method: 'PATCH',
    url: '/api/auth/me/ai-prefs/tiers',
    headers: { 'x-service-user': 'alice' },
    payload: { tiers: { large: { provider: 'anthropic', model: 'alice-large' } } },
  });
  expect(patched.statusCode).toBe(200);

  const alice = await runAndCollect({ user: 'alice', cwd: project });
  expect(alice.models).toEqual({ 'node-a': 'alice-large', 'node-b': 'repo-medium', 'node-c': 'install-small' });
  expect((await t.app.inject({ url: `/api/workflows/runs/${alice.runId}` })).json().run.user_id).toBe('alice');

  // Without an identity: repository over install; no personal layer.
  const anonymous = await runAndCollect({ cwd: project });
  expect(anonymous.models).toEqual({ 'node-a': 'repo-large', 'node-b': 'repo-medium', 'node-c': 'install-small' });
  expect((await t.store.getRun(anonymous.runId))?.user_id).toBeNull();

  // Another user's prefs are not alice's.
  const bob = await runAndCollect({ user: 'bob', cwd: project });
  expect(bob.models['node-a']).toBe('repo-large');

  // The run's own tiers are the final layer; outside the project, medium is the built-in preset.
  const pinned = await runAndCollect({ user: 'alice', body: { tiers: { large: 'anthropic/run-large' } } });
  expect(pinned.models).toEqual({ 'node-a': 'run-large', 'node-b': 'claude-sonnet-4-6', 'node-c': 'install-small' });
});
