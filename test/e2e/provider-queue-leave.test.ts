import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { summariseNodes } from '../../src/cli/node-summary.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { makeTestApp } from '../helpers/app.js';
import { startSupervisor, type LooseEvent, type SupervisorHarness } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * docs/providers.md (Queue visibility): a waiting node records `provider_queued` "again whenever
 * its position changes while it is within the first 10 places of the line", and `cairn run get`
 * shows it as `queued (provider <id>, position k)` until it starts. Here the node at the head of
 * the line leaves it (its run is cancelled) while the provider is held back by its requests per
 * minute: everyone behind it moves up one place.
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

const positions = (events: readonly LooseEvent[]) =>
  events.filter((e) => e.event_type === 'provider_queued').map((e) => e.data.position as number);

const oneCall = (name: string) => `name: ${name}\ndescription: one AI node\nprovider: anthropic\nnodes:\n  - id: ask\n    prompt: "hello"\n`;

async function queuedRun(sup: SupervisorHarness, name: string, position: number) {
  const run = await sup.createRun(oneCall(name));
  await waitFor(async () => (positions(await sup.events(run.id)).includes(position) ? true : undefined), { what: `${name} queued at ${position}` });
  return run;
}

it('moves every waiter behind a node that left the head of the line up one place (limit 2, one call a minute)', async () => {
  const releases: (() => void)[] = [];
  server = await startAnthropicServer(() => ({
    kind: 'stream',
    blocks: [{ type: 'text', text: 'ok' }],
    usage: { input_tokens: 1, output_tokens: 1 },
    heldUntil: new Promise<void>((resolve) => releases.push(resolve)),
  }));
  writeFileSync(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 2\n  requestsPerMinute:\n    anthropic: 1\n');
  const sup = await startSupervisor(home, { limit: 4, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
  const api = await makeTestApp(home);

  // X's call is in flight and used the minute's only start; A, B and C wait in line, 1 to 3.
  const x = await sup.createRun(oneCall('x'));
  await waitFor(() => (server!.requests.length === 1 ? true : undefined), { what: "x's call" });
  const a = await queuedRun(sup, 'a', 1);
  const b = await queuedRun(sup, 'b', 2);
  const c = await queuedRun(sup, 'c', 3);

  const cancel = await api.app.inject({ method: 'POST', url: `/api/workflows/runs/${a.id}/cancel` });
  expect(cancel.statusCode).toBe(200);
  expect((await sup.waitForStatus(a.id, ['cancelled'])).status).toBe('cancelled');
  // B is now first in line and says so.
  await waitFor(async () => (positions(await sup.events(b.id)).at(-1) === 1 ? true : undefined), { what: 'b to move up to 1' });
  const health = await waitFor(async () => {
    const res = await api.app.inject({ method: 'GET', url: '/api/health' });
    const perProvider = res.json().concurrency.perProvider;
    return perProvider.anthropic?.queued === 2 ? perProvider : undefined;
  }, { what: 'the heartbeat to show two queued' });
  expect(health.anthropic).toEqual({ active: 1, queued: 2, limit: 2 });

  // C moved from 3 to 2: its record (and what `cairn run get` shows) must follow.
  const cPositions = await waitFor(
    async () => {
      const p = positions(await sup.events(c.id));
      return p.at(-1) === 2 ? p : undefined;
    },
    { what: 'c to move up to 2', timeoutMs: 5_000 },
  ).catch(async () => positions(await sup.events(c.id)));
  expect(cPositions).toEqual([3, 2]);
  const shown = summariseNodes(await sup.events(c.id)).find((n) => n.node === 'ask');
  expect(shown?.reason).toBe('queued (provider anthropic, position 2)');
  // Nothing else was called: the minute's budget still holds B and C.
  expect(server.requests).toHaveLength(1);
  releases[0]!();
  expect((await sup.waitForStatus(x.id, ['completed', 'failed'])).status).toBe('completed');
});
