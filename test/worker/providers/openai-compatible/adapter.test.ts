import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAiCompatibleAdapter } from '../../../../src/worker/providers/openai-compatible/adapter.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/** The real OpenAI-compatible adapter (openai SDK) against a local Chat Completions SSE server. */

let server: OpenAiServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.cleanup();
});

async function task(reply: ChatReply, overrides: Parameters<typeof agentTask>[1] = {}) {
  server = await startOpenAiServer(() => reply);
  return agentTask(dir.dir, {
    provider: 'openai-compatible',
    model: 'llama3.2',
    connection: { baseUrl: server.url, apiKey: 'sk-openai-test-SECRET' },
    ...overrides,
  });
}

describe('openai-compatible adapter', () => {
  it('fails a refused connection as transient, naming the address it tried', async () => {
    // Nothing listens on port 9 of this host.
    const { outcome } = await runAttempt(openAiCompatibleAdapter, agentTask(dir.dir, { provider: 'openai-compatible', model: 'm', connection: { baseUrl: 'http://127.0.0.1:9/v1' } }));
    expect(outcome).toMatchObject({ status: 'failed', failureKind: 'transient', providerFailure: { class: 'transient' } });
    expect(outcome.error).toContain('cannot connect to the provider at http://127.0.0.1:9/v1: ECONNREFUSED');
  });

  it('streams text and maps usage, stop reason and the model the server names', async () => {
    const t = await task({ kind: 'stream', model: 'llama3.2:3b', reasoning: ['think'], deltas: ['Hel', 'lo'], usage: { prompt_tokens: 9, completion_tokens: 0, total_tokens: 9, prompt_tokens_details: { cached_tokens: 2 } } });
    const { outcome, chunks, spend } = await runAttempt(openAiCompatibleAdapter, t);
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Hello');
    expect(chunks.map((c) => c.type)).toEqual(['stream_open', 'thinking', 'text', 'text']);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 9, output: 0, total: 9, cacheRead: 2 } });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'stop' });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe('llama3.2:3b');
    expect(server!.requests[0]!.headers.authorization).toBe('Bearer sk-openai-test-SECRET');
  });

  it('leaves tokens unknown (undeclared support) when a local server sends no usage', async () => {
    const { spend } = await runAttempt(openAiCompatibleAdapter, await task({ kind: 'stream', deltas: ['hi'], usage: null }));
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'unknown' });
  });

  it.each([
    [{ kind: 'error', status: 401, code: 'invalid_api_key', message: 'Incorrect API key' }, 'auth', 'fatal'],
    [{ kind: 'error', status: 429, code: 'insufficient_quota', message: 'You exceeded your quota' }, 'quota_exhausted', 'fatal'],
    [{ kind: 'error', status: 404, code: 'model_not_found', message: 'no such model' }, 'misconfigured', 'config'],
    [{ kind: 'error', status: 503, message: 'busy' }, 'overloaded', 'overloaded'],
    [{ kind: 'error', status: 502, message: 'bad gateway' }, 'transient', 'transient'],
    [{ kind: 'empty' }, 'transient', 'transient'],
  ] as const)('classifies %j as %s', async (reply, cls, kind) => {
    const { outcome } = await runAttempt(openAiCompatibleAdapter, await task(reply as ChatReply));
    expect(outcome.providerFailure?.class).toBe(cls);
    expect(outcome.failureKind).toBe(kind);
  });

  it('honours Retry-After on a rate limit', async () => {
    const t = await task({ kind: 'error', status: 429, code: 'rate_limit_exceeded', message: 'Rate limit reached', headers: { 'retry-after': '2' } });
    const { outcome } = await runAttempt(openAiCompatibleAdapter, t);
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 2000 });
  });

  it('validates output_format after the attempt: pass and fail', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const ok = await runAttempt(openAiCompatibleAdapter, await task({ kind: 'stream', deltas: ['```json\n{"n": 4}\n```'] }, { outputFormat: schema }));
    expect(ok.outcome.status).toBe('completed');
    expect(ok.outcome.structured).toEqual({ n: 4 });
    expect(server!.requests[0]!.body.response_format.type).toBe('json_schema');
    await server!.close();
    const bad = await runAttempt(openAiCompatibleAdapter, await task({ kind: 'stream', deltas: ['not json'] }, { outputFormat: schema }));
    expect(bad.outcome.failureKind).toBe('output_contract');
  });

  it('fails with a configuration error when no model is configured', async () => {
    const t = await task({ kind: 'stream', deltas: ['x'] });
    delete (t as { model?: string }).model;
    const { outcome } = await runAttempt(openAiCompatibleAdapter, t);
    expect(outcome.failureKind).toBe('config');
    expect(server!.requests).toHaveLength(0);
  });

  it('times out on a silent server and on a stalled stream', async () => {
    const first = await runAttempt(openAiCompatibleAdapter, await task({ kind: 'hang' }, { firstEventTimeoutMs: 300 }));
    expect(first.outcome.failureKind).toBe('timeout');
    expect(first.outcome.error).toMatch(/first-event watchdog/);
    await server!.close();
    // The stream opens (a role chunk, no content) and then says nothing: that opening is the
    // provider's first event, so the idle watchdog stops it, not the first-event one.
    const idle = await runAttempt(openAiCompatibleAdapter, await task({ kind: 'stream', deltas: ['a'], stallAfterFirst: true }, { idleTimeoutMs: 300, firstEventTimeoutMs: 60_000 }));
    expect(idle.outcome.failureKind).toBe('timeout');
    expect(idle.outcome.error).toMatch(/idle watchdog/);
  });
});
