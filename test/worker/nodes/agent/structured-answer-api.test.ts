import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STRUCTURED_REASKS } from '../../../../src/worker/nodes/agent/structured-answer.js';
import { anthropicAdapter } from '../../../../src/worker/providers/anthropic/adapter.js';
import { openAiCompatibleAdapter } from '../../../../src/worker/providers/openai-compatible/adapter.js';
import { startAnthropicServer, type AnthropicServer } from '../../../helpers/anthropic-server.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt, scratch } from '../../providers/agent-harness.js';

/**
 * `output_format` on API providers, through the real adapters against local servers: the
 * best-effort `openai-compatible` is shown the schema and asked once more in a fresh call that
 * quotes its wrong answer and names what was wrong; the enforcing `anthropic` is never asked again.
 */

const schema = { type: 'object', properties: { kind: { type: 'string' }, note: { type: 'string' } }, required: ['kind'] };
const schemaText = JSON.stringify(schema, null, 2);

let dir: ReturnType<typeof scratch>;
let openai: OpenAiServer | undefined;
let anthropic: AnthropicServer | undefined;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await openai?.close();
  await anthropic?.close();
  openai = anthropic = undefined;
  dir.cleanup();
});

/** The text of every user message of a Chat Completions request. */
function userText(body: { messages: { role: string; content: unknown }[] }): string {
  return body.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

async function ask(answers: string[]) {
  const usage = [
    { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
  ];
  openai = await startOpenAiServer((_req, i): ChatReply => ({ kind: 'stream', deltas: [answers[i] ?? '{"kind":"unexpected call"}'], usage: usage[i] ?? null }));
  const task = agentTask(dir.dir, {
    provider: 'openai-compatible',
    model: 'test-model',
    prompt: 'Classify the issue: the button does nothing.',
    outputFormat: schema,
    connection: { baseUrl: openai.url },
  });
  return runAttempt(openAiCompatibleAdapter, task);
}

describe('structured output on a best-effort API provider (openai-compatible)', () => {
  it('asks once more (as documented)', () => {
    expect(STRUCTURED_REASKS).toBe(1);
  });

  it.each([
    ['prose', 'It is a bug, I think.', /the answer is not JSON/],
    ['invalid JSON', '{"kind": "bug",', /the answer is not JSON/],
    ['a missing required field', '{"note": "no kind given"}', /the answer does not match the schema: kind: /],
  ])('after %s, asks again naming the error and quoting the answer, and completes with the second answer; both calls are spent', async (_what, wrong, error) => {
    const { outcome, spend } = await ask([wrong, '{"kind":"bug"}']);
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ kind: 'bug' });
    expect(outcome.output).toBe('{"kind":"bug"}');
    expect(outcome.reasked).toHaveLength(1);
    expect(outcome.reasked![0]).toMatch(error);

    expect(openai!.requests).toHaveLength(2);
    const [first, second] = openai!.requests.map((r) => userText(r.body));
    // The first request: the node's prompt, the schema and the rule to answer with its JSON alone.
    expect(first).toContain('Classify the issue: the button does nothing.');
    expect(first).toContain(schemaText);
    expect(first).toMatch(/one JSON object that matches the JSON Schema below, and nothing else/);
    // The second (a fresh call: this provider keeps no session) asks the question again, quotes
    // the wrong answer and names what was wrong with it.
    expect(second).toContain('Classify the issue: the button does nothing.');
    expect(second).toContain(schemaText);
    expect(second).toContain(wrong);
    expect(second).toContain(outcome.reasked![0]);
    expect(second).toMatch(error);

    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 300, output: 30, total: 330 } });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'stop' });
  });

  it('fails with output_contract naming the error of each answer after two wrong answers; both calls are spent', async () => {
    const { outcome, spend } = await ask(['Sure! Here it is: kind=bug', '{"kind": 7}']);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('output_contract');
    expect(outcome.retryable).toBe(false);
    expect(outcome.error).toMatch(/^output_format: no answer matched the schema in 2 asks \(answer 1: the answer is not JSON .*; answer 2: the answer does not match the schema: kind: /);
    expect(outcome.output).toBe('{"kind": 7}');
    expect(outcome.reasked).toHaveLength(1);
    expect(openai!.requests).toHaveLength(2);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 300, output: 30, total: 330 } });
  });

  it('quotes at most the first 8,000 characters of a long wrong answer', async () => {
    const long = `${'a'.repeat(8_000)}TAIL-NOT-QUOTED`;
    await ask([long, '{"kind":"bug"}']);
    const second = userText(openai!.requests[1]!.body);
    expect(second).toContain(`${'a'.repeat(8_000)}\n[… cut]`);
    expect(second).not.toContain('TAIL-NOT-QUOTED');
  });

  it('keeps what it says about a hostile answer short: a huge key is not repeated whole in the re-ask or the error', async () => {
    const key = 'k'.repeat(100_000);
    const strict = { ...schema, additionalProperties: false };
    openai = await startOpenAiServer(() => ({ kind: 'stream', deltas: [JSON.stringify({ kind: 'bug', [key]: 1 })] }));
    const task = agentTask(dir.dir, { provider: 'openai-compatible', model: 'test-model', outputFormat: strict, connection: { baseUrl: openai.url } });
    const { outcome } = await runAttempt(openAiCompatibleAdapter, task);
    expect(outcome.failureKind).toBe('output_contract');
    expect(outcome.error!.length).toBeLessThan(2_500);
    expect(outcome.reasked![0]!.length).toBeLessThanOrEqual(1_001);
    // The re-ask quotes the answer cut to 8,000 characters, and names the problem in at most 1,000.
    expect(userText(openai.requests[1]!.body).length).toBeLessThan(12_000);
  });

  it('asks once when the first answer matches', async () => {
    const { outcome, spend } = await ask(['```json\n{"kind":"feature","note":"dark mode"}\n```']);
    expect(outcome.status).toBe('completed');
    expect(outcome.structured).toEqual({ kind: 'feature', note: 'dark mode' });
    expect(outcome.reasked).toBeUndefined();
    expect(openai!.requests).toHaveLength(1);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 100, output: 10, total: 110 } });
  });

  it('does not ask again when the call itself failed (the retry policy decides)', async () => {
    openai = await startOpenAiServer(() => ({ kind: 'error', status: 500, type: 'server_error', message: 'boom' }));
    const task = agentTask(dir.dir, { provider: 'openai-compatible', model: 'test-model', outputFormat: schema, connection: { baseUrl: openai.url } });
    const { outcome } = await runAttempt(openAiCompatibleAdapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).not.toBe('output_contract');
    expect(openai.requests).toHaveLength(1);
  });
});

describe('structured output on an enforcing provider (anthropic)', () => {
  it('is not asked again: a wrong answer fails at once, and the prompt is the node\'s own', async () => {
    anthropic = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'not json' }], usage: { input_tokens: 5, output_tokens: 2 } }));
    const task = agentTask(dir.dir, { provider: 'anthropic', prompt: 'Classify it.', outputFormat: schema, connection: { baseUrl: anthropic.url, apiKey: 'sk-ant-test' } });
    const { outcome, spend } = await runAttempt(anthropicAdapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('output_contract');
    expect(outcome.error).toMatch(/^output_format: the answer is not JSON/);
    expect(outcome.reasked).toBeUndefined();
    expect(anthropic.requests).toHaveLength(1);
    expect(JSON.stringify(anthropic.requests[0]!.body.messages)).not.toContain('JSON Schema below');
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 5, output: 2 } });
  });
});
