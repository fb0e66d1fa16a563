import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { nodeTimeline, startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * AI nodes through the whole engine: a real supervisor, the real Piscina pool over the built
 * task file, the real anthropic adapter in a worker thread, a local Messages API server.
 */

const SECRET = 'sk-ant-e2e-SECRET-0123456789';
let home: TempHome;
let server: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
});

async function supervisorFor(reply: (i: number) => MessagesReply, opts: { limit?: number; config?: string } = {}) {
  server = await startAnthropicServer((_req, i) => reply(i));
  if (opts.config) writeFileSync(home.paths.config, opts.config);
  return startSupervisor(home, {
    limit: opts.limit ?? 4,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SECRET },
  });
}

it('runs a prompt node: output to dependants, binding and spend recorded, the key nowhere in the log', async () => {
  const sup = await supervisorFor(() => ({ kind: 'stream', model: 'claude-resolved-x', blocks: [{ type: 'text', text: 'forty-two' }], usage: { input_tokens: 5, output_tokens: 2 } }));
  const run = await sup.createRun(`name: ai
description: one AI node
provider: anthropic
nodes:
  - id: ask
    prompt: "What is the answer? $ARGUMENTS"
    model: claude-test-model
  - id: echo
    depends_on: [ask]
    bash: "printf '%s' $ask.output"
`, { message: 'be brief' });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await sup.events(run.id);
  expect(nodeTimeline(events)).toEqual(['node_started:ask', 'node_completed:ask', 'node_started:echo', 'node_completed:echo']);
  const done = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'ask')!;
  expect(done.data.execution.binding).toMatchObject({
    provider: 'anthropic',
    model: { requested: 'claude-test-model', resolved: { source: 'provider', value: 'claude-resolved-x' } },
    sessionOrigin: 'fresh',
  });
  expect(done.data.execution.spend.tokens).toEqual({ source: 'provider', value: { input: 5, output: 2 } });
  expect(done.data.execution.spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
  expect(done.data.execution.node).toEqual({ id: 'ask', kind: 'agent', source: { kind: 'inline' } });
  const started = events.find((e) => e.event_type === 'node_started' && e.step_name === 'ask')!;
  expect(started.data.execution.binding.model.resolved).toEqual({ source: 'unavailable', reason: 'not_reported' });
  expect(events.find((e) => e.step_name === 'echo' && e.event_type === 'node_completed')!.data.node_output).toBe('forty-two');
  expect(server.requests[0]!.body.messages[0].content).toBe('What is the answer? be brief');
  expect(JSON.stringify(events)).not.toContain(SECRET);
});

it('retries a rate-limited attempt after Retry-After as a new attempt, holding no slot while it waits', async () => {
  const sup = await supervisorFor(
    (i) => (i === 0
      ? { kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '1' } }
      : { kind: 'stream', blocks: [{ type: 'text', text: 'finally' }] }),
    { limit: 1 },
  );
  const run = await sup.createRun(`name: ai-retry
description: rate limited once
provider: anthropic
nodes:
  - id: ask
    prompt: hi
  - id: other
    bash: echo meanwhile
`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await sup.events(run.id);
  const timeline = nodeTimeline(events);
  expect(timeline.filter((t) => t.endsWith(':ask'))).toEqual(['node_started:ask', 'node_failed:ask', 'node_started:ask', 'node_completed:ask']);
  // Under a global limit of 1, the other node ran while ask waited out its Retry-After.
  const secondStart = timeline.lastIndexOf('node_started:ask');
  expect(timeline.indexOf('node_completed:other')).toBeLessThan(secondStart);
  const failed = events.find((e) => e.event_type === 'node_failed')!;
  expect(failed.data.execution.lifecycle).toMatchObject({ failureKind: 'rate_limited', providerFailure: { class: 'rate_limited', retryAfterMs: 1000 } });
  const ask = events.filter((e) => e.step_name === 'ask' && e.data.execution);
  expect(new Set(ask.map((e) => e.data.execution.invocation.id)).size).toBe(1);
  const failedAt = Date.parse(failed.created_at);
  const retriedAt = Date.parse(events.filter((e) => e.event_type === 'node_started' && e.step_name === 'ask')[1]!.created_at);
  expect(retriedAt - failedAt).toBeGreaterThanOrEqual(1000);
});

it('never retries an auth failure', async () => {
  const sup = await supervisorFor(() => ({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }));
  const run = await sup.createRun(`name: ai-auth
description: bad key
provider: anthropic
nodes:
  - id: ask
    prompt: hi
    retry: { max_attempts: 3, on_error: all }
`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('failed');
  expect(nodeTimeline(await sup.events(run.id))).toEqual(['node_started:ask', 'node_failed:ask']);
  expect(server.requests).toHaveLength(1);
});

it('a per-provider limit of 2 under a global 8 never lets a third call start, while other nodes keep running', async () => {
  const sup = await supervisorFor(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'ok' }], delayMs: 150 }), {
    limit: 8,
    config: 'concurrency:\n  providers:\n    anthropic: 2\n',
  });
  const aiNodes = Array.from({ length: 6 }, (_, i) => `  - id: ai${i}\n    prompt: "question ${i}"\n`).join('');
  const run = await sup.createRun(`name: ai-limit
description: six AI nodes and a bash node
provider: anthropic
nodes:
${aiNodes}  - id: plain
    bash: echo plain
`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(server.maxConcurrent()).toBe(2);
  const events = await sup.events(run.id);
  const timeline = nodeTimeline(events);
  // The bash node did not wait behind the AI nodes queued for their provider.
  const lastAi = Math.max(...[0, 1, 2, 3, 4, 5].map((i) => timeline.indexOf(`node_completed:ai${i}`)));
  expect(timeline.indexOf('node_completed:plain')).toBeLessThan(lastAi);
  const queued = events.filter((e) => e.event_type === 'provider_queued');
  expect(queued.length).toBeGreaterThan(0);
  expect(queued[0]!.data).toMatchObject({ provider: 'anthropic', limit: 2 });
  expect(queued.map((e) => e.data.position)).toContain(1);
});
