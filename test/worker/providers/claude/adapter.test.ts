import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../../src/shared/process-group.js';
import { CLAUDE_NOT_FOUND, claudeAdapter } from '../../../../src/worker/providers/claude/adapter.js';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import { startAnthropicServer, type MessagesReply } from '../../../helpers/anthropic-server.js';
import { runAttempt, spawnProbe } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';
import { cliProcessCases } from '../cli-process-cases.js';

/**
 * The real Claude Code CLI (npm package @anthropic-ai/claude-code, a devDependency; it runs on
 * Node 20) driven by the real adapter, with ANTHROPIC_BASE_URL pointing at a local server that
 * speaks the Messages API: the CLI streams a genuine stream-json session.
 */

const cli = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/cli.js');

const setup = cliTestSetup({
  start: (reply: (i: number) => MessagesReply) => startAnthropicServer((_req, i) => reply(i)),
  task: (server, dir) => ({
    provider: 'claude',
    model: 'claude-sonnet-4-5',
    connection: {
      binaryPath: cli,
      baseUrl: server.url,
      apiKey: 'sk-ant-test-SECRET',
      // The CLI keeps its settings under HOME: each test gets its own.
      env: { HOME: dir, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
    },
  }),
});
const claudeTask = setup.task;

/** Records the group the adapter forked, so a test can check that nothing of it is left. */
describe('claude adapter (real Claude Code CLI)', () => {
  it('calls with a subscription login’s token as a bearer token, over a key in the server’s environment', async () => {
    const base = await claudeTask(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'via login' }] }));
    const { apiKey: _key, ...connection } = base.connection;
    const task = { ...base, connection: { ...connection, authToken: 'oauth-access-token-1', env: { ...connection.env, ANTHROPIC_API_KEY: 'sk-ant-server-key' } } };
    const { outcome } = await runAttempt(claudeAdapter, task);
    expect(outcome.status).toBe('completed');
    const headers = setup.server().requests[0]!.headers;
    expect(headers.authorization).toBe('Bearer oauth-access-token-1');
    expect(headers['x-api-key']).toBeUndefined();
  });

  it('streams text; reports tokens, cost, turns, stop reason, resolved model and the session', async () => {
    const task = await claudeTask(() => ({ kind: 'stream', model: 'claude-sonnet-4-5-20250929', blocks: [{ type: 'text', text: 'hello from the CLI' }], usage: { input_tokens: 12, output_tokens: 0, cache_read_input_tokens: 3 } }));
    const probe = spawnProbe();
    const { outcome, chunks, spend } = await runAttempt(claudeAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('hello from the CLI');
    expect(chunks.some((c) => c.type === 'text')).toBe(true);
    expect(spend.tokens).toMatchObject({ source: 'provider', value: { input: 12, output: 0, cacheRead: 3 } });
    expect(spend.costUsd.source).toBe('provider');
    expect(spend.numTurns).toEqual({ source: 'provider', value: 1 });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'end_turn' });
    expect(outcome.end.resolvedModel).toBe('claude-sonnet-4-5-20250929');
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(setup.server().requests[0]!.headers['x-api-key']).toBe('sk-ant-test-SECRET');
    expect(probe.pids).toHaveLength(1);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it('stops the CLI at its first retry notice of a 401 and fails at once with class auth', async () => {
    const task = await claudeTask(() => ({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }));
    const probe = spawnProbe();
    const { outcome } = await runAttempt(claudeAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.providerFailure?.class).toBe('auth');
    expect(outcome.providerFailure?.evidence).toMatch(/api_retry.*401 authentication_failed/);
    expect(outcome.failureKind).toBe('fatal');
    expect(outcome.retryable).toBe(false);
    // One request, not the minutes of retries the CLI would make.
    expect(setup.server().requests.length).toBeLessThanOrEqual(2);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });

  it("shows the CLI's 429 retry notices as rate-limit chunks and completes when the API recovers", async () => {
    const task = await claudeTask((i) =>
      i === 0
        ? { kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '1' } }
        : { kind: 'stream', blocks: [{ type: 'text', text: 'after the wait' }] },
    );
    const { outcome, chunks } = await runAttempt(claudeAdapter, task);
    expect(outcome.status).toBe('completed');
    const notices = chunks.filter((c): c is Extract<ProviderChunk, { type: 'rate_limit' }> => c.type === 'rate_limit');
    expect(notices[0]).toMatchObject({ status: 429 });
    expect(outcome.output).toBe('after the wait');
  });

  it('passes a hostile prompt on stdin: never a flag, never shell text', async () => {
    const hostile = '--version; $(touch pwned) `touch pwned2` "; touch pwned3'; 
    const task = await claudeTask(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'ok' }] }), { prompt: hostile });
    const { outcome } = await runAttempt(claudeAdapter, task);
    expect(outcome.status).toBe('completed');
    const sent = JSON.stringify(setup.server().requests[0]!.body.messages);
    expect(sent).toContain('$(touch pwned)');
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(setup.dir(), f))).toBe(false);
  });

  it('returns the structured output the CLI validated against --json-schema', async () => {
    const task = await claudeTask(
      (i) =>
        i === 0
          ? { kind: 'stream', blocks: [{ type: 'tool_use', name: 'StructuredOutput', input: { verdict: 'ship' } }] }
          : { kind: 'stream', blocks: [{ type: 'text', text: 'done' }] },
      { outputFormat: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] } },
    );
    const { outcome } = await runAttempt(claudeAdapter, task);
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ verdict: 'ship' });
  });

  cliProcessCases({
    provider: 'claude',
    adapter: claudeAdapter,
    hangingTask: (overrides) => claudeTask(() => ({ kind: 'hang' }), overrides),
    notFound: CLAUDE_NOT_FOUND,
    dir: () => setup.dir(),
  });
  it('continues the session an earlier attempt left (--resume), and starts cold when the CLI no longer knows it', async () => {
    const task = await claudeTask(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'noted' }], usage: { input_tokens: 5, output_tokens: 1 } }));
    const sent = () => JSON.stringify(setup.server().requests.at(-1)!.body.messages);
    const first = await runAttempt(claudeAdapter, { ...task, prompt: 'remember the word PELICAN' });
    const sessionId = first.outcome.end.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.outcome.end.sessionOrigin).toBeUndefined();

    const resumed = await runAttempt(claudeAdapter, { ...task, prompt: 'which word was it?', resumeSessionId: sessionId });
    expect(resumed.outcome.status).toBe('completed');
    expect(resumed.outcome.end.sessionOrigin).toBe('resumed');
    // The provider saw the first attempt's conversation before the new prompt.
    expect(sent()).toContain('PELICAN');
    expect(sent()).toContain('which word was it?');

    const probe = spawnProbe();
    const cold = await runAttempt(claudeAdapter, { ...task, prompt: 'start over', resumeSessionId: randomUUID() }, { onSpawned: probe.onSpawned });
    expect(cold.outcome.status).toBe('completed');
    expect(cold.outcome.output).toBe('noted');
    expect(cold.outcome.end.sessionOrigin).toBe('resume-failed-cold');
    expect(sent()).toContain('start over');
    expect(sent()).not.toContain('PELICAN');
    // Two processes (the refused resume, then the cold start), neither left behind.
    expect(probe.pids).toHaveLength(2);
    for (const pid of probe.pids) expect(isProcessGroupAlive(pid)).toBe(false);
  });

  it('keeps the end of an attempt the idle watchdog stopped: its session and failure are still reported', async () => {
    const task = await claudeTask(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'partial' }], stallAfterFirst: true }), { idleTimeoutMs: 3000 });
    const probe = spawnProbe();
    const { outcome } = await runAttempt(claudeAdapter, task, { onSpawned: probe.onSpawned });
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('timeout');
    // The adapter's own end, read after the kill, not a stand-in for a missing one.
    expect(outcome.end.failure?.message).not.toMatch(/ended without a result/);
    expect(outcome.end.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(isProcessGroupAlive(probe.pids[0]!)).toBe(false);
  });
});
