import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { startAnthropicServer, type AnthropicServer } from '../../helpers/anthropic-server.js';
import { startSupervisor, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The model layers end to end: runs started through the real API (with and without
 * X-Service-User) and driven by a real supervisor against a local Anthropic server; the model
 * each node asked for shows which layer decided its tier, or which level of the workflow (node,
 * loop_group, workflow) decided its provider and model. One server and supervisor for the file.
 */

let home: TempHome;
let t: TestApp;
let server: AnthropicServer;
let supervisor: SupervisorHarness;
let project: string;

beforeAll(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  server = await startAnthropicServer((req) => ({ kind: 'stream', blocks: [{ type: 'text', text: JSON.stringify(req.body.messages).includes('Review the change') ? 'APPROVED' : 'ok' }] }));
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
  // docs/workflows.md's loop_group example, in a workflow whose own provider is codex.
  await writeHomeWorkflow(home, 'review-fix-group', readFileSync(new URL('../../fixtures/workflows/examples/workflows/review-fix-group.yaml', import.meta.url), 'utf8'));
  supervisor = await startSupervisor(home, { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-layers' } });
});
afterAll(async () => {
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

it("docs/workflows.md's loop_group example: the group's provider and model reach its body's AI nodes over the workflow's, a body node's own model over the group's", async () => {
  const before = server.requests.length;
  const res = await t.app.inject({ method: 'POST', url: '/api/workflows/review-fix-group/run', headers: { 'content-type': 'application/json' }, payload: '{}' });
  expect(res.statusCode, res.body).toBe(200);
  const { runId } = res.json() as { runId: string };
  const run = await supervisor.waitForStatus(runId, ['completed', 'failed', 'cancelled']);
  // The workflow says codex: a body node that did not take the group's provider would never reach this server.
  expect(run.status, run.error ?? '').toBe('completed');
  const asked = server.requests.slice(before).map((req) => [/Fix what|Review the change/.exec(JSON.stringify(req.body.messages))![0], req.body.model]);
  expect(asked).toEqual([['Fix what', 'claude-haiku-4-5'], ['Review the change', 'claude-sonnet-4-6']]);
  type Binding = { provider?: string; model?: { requested?: string } };
  const bindings = (await t.store.listRunEvents(runId))
    .filter((e) => e.event_type === 'node_completed' && e.step_name?.startsWith('review-fix/'))
    .map((e) => [e.step_name, (e.data as { execution: { binding: Binding } }).execution.binding])
    .map(([step, b]) => [step, (b as Binding).provider, (b as Binding).model?.requested]);
  expect(bindings).toEqual([
    ['review-fix/fix', 'anthropic', 'claude-haiku-4-5'],
    ['review-fix/review', 'anthropic', 'claude-sonnet-4-6'],
  ]);
});
