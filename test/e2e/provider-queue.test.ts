import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { summariseNodes } from '../../src/cli/node-summary.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { makeTestApp } from '../helpers/app.js';
import { startSupervisor, type LooseEvent } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Flow-control visibility and budgets through the whole engine: a real supervisor, the real pool
 * and adapters, the real API, local vendor servers.
 */

let home: TempHome;
let server: AnthropicServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
  server = undefined;
});

function positionsOf(events: readonly LooseEvent[], node: string): number[] {
  return events.filter((e) => e.event_type === 'provider_queued' && e.step_name === node).map((e) => e.data.position as number);
}


/** A workflow of three independent `anthropic` prompts, a0 to a2. */
function threeAnthropicNodes(name: string, description: string): string {
  const nodes = ['first', 'second', 'third'].map((prompt, i) => `  - id: a${i}\n    prompt: "${prompt}"`).join('\n');
  return `name: ${name}\ndescription: ${description}\nprovider: anthropic\nnodes:\n${nodes}\n`;
}
it('shows nodes waiting for their provider with their position, kept current as the line moves, and in /api/health', async () => {
  const releases: (() => void)[] = [];
  server = await startAnthropicServer(() => ({
    kind: 'stream',
    blocks: [{ type: 'text', text: 'ok' }],
    heldUntil: new Promise<void>((resolve) => releases.push(resolve)),
  }));
  writeFileSync(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 1\n');
  const sup = await startSupervisor(home, { limit: 4, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  const api = await makeTestApp(home);
  const run = await sup.createRun(threeAnthropicNodes('queue-positions', 'three AI nodes behind a provider limit of 1'));
  // One call is in flight; the two others wait in line at positions 1 and 2.
  const waiting = await waitFor(async () => {
    const events = await sup.events(run.id);
    const queued = events.filter((e) => e.event_type === 'provider_queued');
    return server!.requests.length === 1 && queued.length === 2 ? { events, queued } : undefined;
  }, { what: 'one call in flight and two nodes queued' });
  expect(waiting.queued.map((e) => e.data.position).sort()).toEqual([1, 2]);
  expect(waiting.queued[0]!.data).toMatchObject({ provider: 'anthropic', limit: 1 });
  const second = waiting.queued.find((e) => e.data.position === 2)!.step_name!;
  const first = waiting.queued.find((e) => e.data.position === 1)!.step_name!;
  // What `cairn run get` shows of them.
  const summary = summariseNodes(waiting.events);
  expect(summary.find((n) => n.node === second)).toEqual({ node: second, status: 'queued', reason: 'queued (provider anthropic, position 2)' });
  expect(summary.find((n) => n.node === first)).toEqual({ node: first, status: 'queued', reason: 'queued (provider anthropic, position 1)' });

  // The real API reports the provider's slots from the supervisor's heartbeat.
  const health = await waitFor(async () => {
    const res = await api.app.inject({ method: 'GET', url: '/api/health' });
    const perProvider = res.json().concurrency.perProvider;
    return perProvider.anthropic?.queued === 2 ? perProvider : undefined;
  }, { what: 'the heartbeat to show two queued' });
  expect(health.anthropic).toEqual({ active: 1, queued: 2, limit: 1 });

  // The first call ends: the first in line takes the slot, the second moves up to 1.
  releases[0]!();
  await waitFor(async () => (positionsOf(await sup.events(run.id), second).includes(1) && server!.requests.length === 2 ? true : undefined), {
    what: 'the last node to move up',
  });
  expect(positionsOf(await sup.events(run.id), second)).toEqual([2, 1]);
  expect(positionsOf(await sup.events(run.id), first)).toEqual([1]);
  const moved = await waitFor(async () => {
    const res = await api.app.inject({ method: 'GET', url: '/api/health' });
    const perProvider = res.json().concurrency.perProvider;
    return perProvider.anthropic?.queued === 1 ? perProvider : undefined;
  }, { what: 'the heartbeat to show one queued' });
  expect(moved.anthropic).toEqual({ active: 1, queued: 1, limit: 1 });

  releases[1]!();
  await waitFor(() => (server!.requests.length === 3 ? true : undefined), { what: 'the third call' });
  releases[2]!();
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const summaryAfter = summariseNodes(await sup.events(run.id));
  expect(summaryAfter.map((n) => n.status)).toEqual(['completed', 'completed', 'completed']);
});

it('holds a call back once its provider has started its requests per minute, as a queued node', async () => {
  server = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1, output_tokens: 1 } }));
  writeFileSync(home.paths.config, 'concurrency:\n  requestsPerMinute:\n    anthropic: 2\n');
  const sup = await startSupervisor(home, { limit: 4, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  const run = await sup.createRun(threeAnthropicNodes('rpm', 'three AI nodes under a budget of two calls a minute'));
  // Two calls ran and completed; the third waits for the minute, first in its provider's line.
  const held = await waitFor(async () => {
    const events = await sup.events(run.id);
    const done = events.filter((e) => e.event_type === 'node_completed');
    const queued = events.filter((e) => e.event_type === 'provider_queued');
    return done.length === 2 && queued.length === 1 ? { done, queued } : undefined;
  }, { what: 'two calls done and one node queued' });
  expect(held.queued[0]!.data).toMatchObject({ provider: 'anthropic', position: 1 });
  expect(server.requests).toHaveLength(2);
  expect((await sup.store.getRun(run.id))!.status).toBe('running');
});
