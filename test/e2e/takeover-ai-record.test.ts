import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Contract, Shared conventions: "`not_applicable`: no provider call happened (node has no
 * provider, or the attempt failed before calling it)." Accounting rule 1: "At finish, omitted
 * observations keep their availability." Binding: provider and model facts of the attempt.
 *
 * An AI attempt whose request already reached the provider (the server sent its headers) is in
 * flight when the supervisor is killed; the take-over closes it. That record must not claim that
 * no provider call happened, and must keep the attempt's provider binding.
 */

let home: TempHome;
let anthropic: AnthropicServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await anthropic?.close();
});

it('the take-over record closing an in-flight AI attempt keeps its binding and does not call its spend not_applicable', async () => {
  anthropic = await startAnthropicServer((_req, i) =>
    i === 0 ? { kind: 'hang' } : { kind: 'stream', model: 'claude-resolved', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 3, output_tokens: 1 } },
  );
  const server = await startServer(home, { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
  await writeHomeWorkflow(home, 'ai-hang', `name: ai-hang
description: one AI node whose first call hangs
provider: anthropic
nodes:
  - id: ask
    prompt: hi
    model: claude-requested
`);
  const { runId } = await startRun(server.url, 'ai-hang');
  await waitFor(async () => {
    const { events } = await getRun(server.url, runId);
    return events.some((e) => e.event_type === 'node_started' && e.step_name === 'ask') && anthropic!.requests.length >= 1 ? true : undefined;
  }, { what: 'the AI call to be in flight' });
  process.kill(await server.pid('supervisor'), 'SIGKILL');

  const { events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.events.some((e) => e.event_type === 'node_failed' && e.step_name === 'ask') ? detail : undefined;
  }, { what: 'the take-over to close the attempt', timeoutMs: 45_000 });
  const ask = events.filter((e) => e.step_name === 'ask' && e.data.execution);
  const started = ask.find((e) => e.event_type === 'node_started')!.data.execution;
  const closed = ask.find((e) => e.event_type === 'node_failed')!.data.execution;
  expect(closed.attempt.id).toBe(started.attempt.id);
  expect(ask.find((e) => e.event_type === 'node_failed')!.data.supervisor_lost).toBe(true);
  // The attempt called the provider: its spend is not "no provider call happened".
  expect(closed.spend.tokens).not.toEqual({ source: 'unavailable', reason: 'not_applicable' });
  // Nothing arrived after the start: every measurement keeps the availability it started with.
  expect(closed.spend).toEqual(started.spend);
  expect(closed.binding.provider).toBe('anthropic');
  expect(closed.binding.model?.requested).toBe('claude-requested');
});
