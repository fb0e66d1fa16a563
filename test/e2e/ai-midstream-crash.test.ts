import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
import { startAnthropicServer } from '../helpers/anthropic-server.js';
import { PAID_ANSWER_USD, paidAnswer, startClaudeCli } from '../helpers/paid-claude.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the supervisor while an AI attempt is in the middle of its provider's stream: the
 * real Claude Code CLI (the adapter that reports cost) against a local Messages API server.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});



it('a supervisor killed -9 while the Claude CLI is mid-stream: the orphaned CLI is killed before the node runs again, the node completes once, and the paid answer is counted once', async () => {
  // The first answer starts streaming, then stalls forever (the CLI waits mid-stream).
  const { messages, cairn } = await startClaudeCli(home, (i) => (i === 0 ? { ...paidAnswer, blocks: [{ type: 'text', text: 'partial' }, { type: 'text', text: 'never' }], stallAfterFirst: true } : paidAnswer));
  await writeHomeWorkflow(home, 'paid-one', `name: paid-one
description: one paid step, then a bash step
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: ask
    prompt: "say done"
  - id: after
    depends_on: [ask]
    bash: echo after
`);
  const { runId } = await startRun(cairn.url, 'paid-one');
  const started = await waitFor(async () => (await getRun(cairn.url, runId)).events.find((e) => e.event_type === 'node_started' && e.step_name === 'ask'), {
    what: 'the AI node to start', timeoutMs: 30_000,
  });
  await waitFor(() => messages.requests.length >= 1, { what: 'the CLI to call the Messages API', timeoutMs: 30_000 });
  // Let the first events of the stream reach the CLI.
  await new Promise((r) => setTimeout(r, 500));
  const cliGroup = started.data.pid as number;
  expect(typeof cliGroup).toBe('number');
  const supervisorPid = await cairn.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed', 'cancelled', 'paused'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 90_000 });
  expect(await cairn.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');
  // The CLI of the interrupted attempt is gone; it never called the provider while the retry did.
  expect(isProcessGroupAlive(cliGroup)).toBe(false);
  expect(messages.maxConcurrent()).toBe(1);
  expect(messages.requests).toHaveLength(2);

  const ask = events.filter((e) => e.step_name === 'ask');
  expect(ask.map((e) => e.event_type).filter((t) => t.startsWith('node_'))).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
  const closed = ask.find((e) => e.event_type === 'node_failed')!;
  expect(closed.data.interrupted).toBe(true);
  // The interrupted attempt was never answered in full: its cost is not reported, never a zero.
  expect(closed.data.execution.spend.costUsd.source).toBe('unavailable');
  const done = ask.find((e) => e.event_type === 'node_completed')!;
  expect(done.data.execution.spend.costUsd.source).toBe('provider');
  expect(done.data.execution.spend.costUsd.value).toBeCloseTo(PAID_ANSWER_USD, 9);
  expect(run.metadata.totals.total_cost_usd).toBeCloseTo(PAID_ANSWER_USD, 9);
  expect(events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toEqual(['ask', 'after']);
}, 120_000);

it('a supervisor killed -9 while an AI node waits out its Retry-After: the next one retries it no earlier than the provider asked, as a new attempt of the same invocation', async () => {
  const RETRY_AFTER_S = 8;
  const arrivals: number[] = [];
  const messages = await startAnthropicServer((_req, i) => {
    arrivals.push(Date.now());
    return i === 0
      ? { kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': String(RETRY_AFTER_S) } }
      : { kind: 'stream', blocks: [{ type: 'text', text: 'finally' }], usage: { input_tokens: 5, output_tokens: 2 } };
  });
  home.defer(() => messages.close());
  const cairn = await startServer(home, { ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-test' });
  await writeHomeWorkflow(home, 'limited', `name: limited
description: rate limited once
provider: anthropic
nodes:
  - id: ask
    prompt: hi
`);
  const { runId } = await startRun(cairn.url, 'limited');
  const failed = await waitFor(async () => (await getRun(cairn.url, runId)).events.find((e) => e.event_type === 'node_failed' && e.step_name === 'ask'), {
    what: 'the rate-limited attempt to be recorded',
  });
  expect(failed.data.execution.lifecycle).toMatchObject({ failureKind: 'rate_limited', providerFailure: { retryAfterMs: RETRY_AFTER_S * 1000 } });
  const supervisorPid = await cairn.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end after the crash', timeoutMs: 60_000 });
  expect(await cairn.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');
  expect(arrivals).toHaveLength(2);
  expect(arrivals[1]! - Date.parse(failed.created_at)).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 50);
  const ask = events.filter((e) => e.step_name === 'ask' && e.data.execution);
  expect(ask.map((e) => e.event_type)).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
  expect(new Set(ask.map((e) => e.data.execution.invocation.id)).size).toBe(1);
  expect(new Set(ask.map((e) => e.data.execution.attempt.id)).size).toBe(2);
}, 90_000);
