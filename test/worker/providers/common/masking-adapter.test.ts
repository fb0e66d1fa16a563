import { expect, it } from 'vitest';
import { REDACTED, SecretMask } from '../../../../src/shared/secret-mask.js';
import { withSecretsMasked } from '../../../../src/worker/providers/common/masking-adapter.js';
import type { ProviderAdapter, ProviderChunk, ProviderRequest } from '../../../../src/worker/providers/provider-adapter.js';

const KEY = 'sk-ant-echoed-0123456789';

/** An adapter that plays the given chunks, then throws `thrown` if given. */
function playing(chunks: ProviderChunk[], thrown?: Error): ProviderAdapter {
  return {
    id: 'anthropic',
    async *run() {
      for (const chunk of chunks) yield chunk;
      if (thrown) throw thrown;
    },
  };
}

async function collect(adapter: ProviderAdapter): Promise<ProviderChunk[]> {
  const out: ProviderChunk[] = [];
  for await (const chunk of adapter.run({} as ProviderRequest, { signal: new AbortController().signal })) out.push(chunk);
  return out;
}

it('masks the key in text cut across chunks, tool calls and results, and the end’s failure, keeping the chunks’ order', async () => {
  const chunks = await collect(withSecretsMasked(playing([
    { type: 'stream_open' },
    { type: 'text', text: 'my key is sk-ant-ec' },
    { type: 'text', text: 'hoed-0123456789, ok' },
    { type: 'tool_call', id: 't1', name: 'Bash', input: { command: `echo ${KEY}` } },
    { type: 'tool_result', id: 't1', output: `${KEY}\n` },
    { type: 'end', called: true, observations: {}, text: `my key is ${KEY}, ok`, failure: { message: `401 invalid x-api-key: ${KEY}`, provider: { class: 'auth', evidence: `HTTP 401 ${KEY}` } } },
  ]), new SecretMask([KEY])));
  expect(JSON.stringify(chunks)).not.toContain('0123456789');
  expect(chunks.map((c) => c.type)).toEqual(['stream_open', 'text', 'text', 'tool_call', 'tool_result', 'end']);
  expect(chunks.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('')).toBe(`my key is ${REDACTED}, ok`);
  expect(chunks[3]).toEqual({ type: 'tool_call', id: 't1', name: 'Bash', input: { command: `echo ${REDACTED}` } });
  expect(chunks.at(-1)).toMatchObject({ text: `my key is ${REDACTED}, ok`, failure: { message: `401 invalid x-api-key: ${REDACTED}`, provider: { evidence: `HTTP 401 ${REDACTED}` } } });
});

it('sends the text it held before the stream ends, and masks the message of an error the adapter throws', async () => {
  const adapter = withSecretsMasked(playing([{ type: 'text', text: 'ends with sk-ant' }], new Error(`connect failed for ${KEY}`)), new SecretMask([KEY]));
  const out: ProviderChunk[] = [];
  const err = await (async () => {
    try {
      for await (const chunk of adapter.run({} as ProviderRequest, { signal: new AbortController().signal })) out.push(chunk);
    } catch (e) {
      return e as Error;
    }
  })();
  expect(err?.message).toBe(`connect failed for ${REDACTED}`);
  expect(err?.cause).toBeUndefined();
  expect(out).toEqual([{ type: 'text', text: 'ends with ' }]);
});

it('is the adapter itself when there is nothing to mask', () => {
  const adapter = playing([]);
  expect(withSecretsMasked(adapter, new SecretMask([]))).toBe(adapter);
});

it('masks the key in the sample of a line the CLI wrote that its reader could not read', async () => {
  const chunks = await collect(withSecretsMasked(playing([
    { type: 'end', called: true, observations: {}, text: 'ok', unreadableLines: { count: 1, first: `not JSON: export ANTHROPIC_API_KEY=${KEY}` } },
  ]), new SecretMask([KEY])));
  expect(chunks.at(-1)).toMatchObject({ unreadableLines: { count: 1, first: `not JSON: export ANTHROPIC_API_KEY=${REDACTED}` } });
});
