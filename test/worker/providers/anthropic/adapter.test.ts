import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../../src/worker/providers/anthropic/adapter.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../../../helpers/anthropic-server.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/** The real Anthropic Messages adapter (@anthropic-ai/sdk) against a local server speaking the API's SSE. */

let server: AnthropicServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.cleanup();
});

async function serve(reply: MessagesReply | ((i: number) => MessagesReply)) {
  server = await startAnthropicServer((_req, i) => (typeof reply === 'function' ? reply(i) : reply));
  return server;
}

const connection = (url: string) => ({ baseUrl: url, apiKey: 'sk-ant-test-SECRET' });

describe('anthropic adapter', () => {
  it('streams text and maps usage: reported values (a genuine zero included), unsupported cost, resolved model', async () => {
    const srv = await serve({ kind: 'stream', model: 'claude-resolved-1', blocks: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Hello there' }], usage: { input_tokens: 12, output_tokens: 0, cache_read_input_tokens: 4 } });
    const task = agentTask(dir.dir, { model: 'claude-sonnet-4-5', connection: connection(srv.url) });
    const { outcome, chunks, spend } = await runAttempt(anthropicAdapter, task);
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Hello there');
    expect(chunks.map((c) => c.type)).toEqual(['stream_open', 'thinking', 'text']);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 12, output: 0, cacheRead: 4 } });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'end_turn' });
    // The Messages API reports no price: never estimated.
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'unsupported' });
    expect(outcome.end.resolvedModel).toBe('claude-resolved-1');
    // The request carried the key and the requested model.
    expect(srv.requests[0]!.headers['x-api-key']).toBe('sk-ant-test-SECRET');
    expect(srv.requests[0]!.body.model).toBe('claude-sonnet-4-5');
  });

  it('calls a server that needs no key without any credential header', async () => {
    const srv = await serve({ kind: 'stream', blocks: [{ type: 'text', text: 'keyless' }], usage: { input_tokens: 1, output_tokens: 1 } });
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { model: 'm', connection: { baseUrl: srv.url } }));
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('keyless');
    expect(srv.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(srv.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('leaves tokens not_reported (never zero) when the API sends no output count', async () => {
    const srv = await serve({ kind: 'stream', blocks: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 3 } });
    const { outcome, spend } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url) }));
    expect(outcome.status).toBe('completed');
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });

  it.each([
    [{ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }, 'auth', 'fatal', false],
    [{ kind: 'error', status: 403, type: 'permission_error', message: 'no access' }, 'auth', 'fatal', false],
    [{ kind: 'error', status: 400, type: 'billing_error', message: 'Your credit balance is too low' }, 'quota_exhausted', 'fatal', false],
    [{ kind: 'error', status: 404, type: 'not_found_error', message: 'model: nope' }, 'misconfigured', 'config', false],
    [{ kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' }, 'overloaded', 'overloaded', undefined],
    [{ kind: 'error', status: 500, type: 'api_error', message: 'Internal' }, 'transient', 'transient', undefined],
    [{ kind: 'stream_error', type: 'overloaded_error', message: 'Overloaded' }, 'overloaded', 'overloaded', undefined],
    [{ kind: 'empty' }, 'transient', 'transient', undefined],
  ] as const)('classifies %j as %s', async (reply, cls, kind, retryable) => {
    const srv = await serve(reply as MessagesReply);
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url) }));
    expect(outcome.status).toBe('failed');
    expect(outcome.providerFailure?.class).toBe(cls);
    expect(outcome.failureKind).toBe(kind);
    expect(outcome.retryable).toBe(retryable);
    expect(outcome.providerFailure?.evidence.length).toBeGreaterThan(0);
    expect(outcome.error).not.toContain('SECRET');
  });

  it('reads Retry-After and the reset time of a 429 into the failure', async () => {
    const srv = await serve({
      kind: 'error', status: 429, type: 'rate_limit_error', message: 'slow down',
      headers: { 'retry-after': '7', 'anthropic-ratelimit-requests-reset': '2030-01-01T00:00:00Z' },
    });
    const { outcome, spend } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url) }));
    expect(outcome.failureKind).toBe('rate_limited');
    expect(outcome.providerFailure).toMatchObject({ class: 'rate_limited', retryAfterMs: 7000, resetAt: '2030-01-01T00:00:00.000Z' });
    // The call reached the provider and was refused: support is declared, nothing was reported.
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });

  it('records spend as not_applicable when no call reached the provider', async () => {
    // Nothing listens on port 9 of this host: the connection is refused before any answer.
    const { outcome, spend } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: { baseUrl: 'http://127.0.0.1:9' } }));
    expect(outcome.failureKind).toBe('transient');
    expect(outcome.error).toContain('cannot connect to the provider at http://127.0.0.1:9: ECONNREFUSED');
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'not_applicable' });
  });

  it('enforces output_format as a forced tool and validates the answer', async () => {
    const srv = await serve({ kind: 'stream', blocks: [{ type: 'tool_use', name: 'structured_output', input: { verdict: 'ok', score: 3 } }] });
    const schema = { type: 'object', properties: { verdict: { type: 'string' }, score: { type: 'number' } }, required: ['verdict', 'score'] };
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url), outputFormat: schema }));
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ verdict: 'ok', score: 3 });
    expect(JSON.parse(outcome.output)).toEqual({ verdict: 'ok', score: 3 });
    expect(srv.requests[0]!.body.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
  });

  it('fails with output_contract when the structured answer violates the schema', async () => {
    const srv = await serve({ kind: 'stream', blocks: [{ type: 'tool_use', name: 'structured_output', input: { verdict: 3 } }] });
    const schema = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url), outputFormat: schema }));
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('output_contract');
    expect(outcome.error).toMatch(/does not match the schema/);
  });

  it('fails with timeout when no event arrives before the first-event watchdog', async () => {
    const srv = await serve({ kind: 'hang' });
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url), firstEventTimeoutMs: 300 }));
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('timeout');
    expect(outcome.error).toMatch(/first-event watchdog/);
  });

  it('fails with timeout when the stream goes idle after its first event', async () => {
    const srv = await serve({ kind: 'stream', blocks: [{ type: 'text', text: 'partial' }], stallAfterFirst: true });
    const { outcome } = await runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url), idleTimeoutMs: 300 }));
    expect(outcome.failureKind).toBe('timeout');
    expect(outcome.error).toMatch(/idle watchdog/);
    expect(outcome.status).not.toBe('completed');
  });

  it('ends as cancelled when cancelled mid-stream', async () => {
    const srv = await serve({ kind: 'hang' });
    const controller = new AbortController();
    const running = runAttempt(anthropicAdapter, agentTask(dir.dir, { connection: connection(srv.url) }), { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort('cancelled');
    const { outcome } = await running;
    expect(outcome.status).toBe('cancelled');
    expect(outcome.failureKind).toBe('cancelled');
  });
});
