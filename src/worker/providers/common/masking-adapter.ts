import { coerceError } from '../../../shared/errors.js';
import type { SecretMask } from '../../../shared/secret-mask.js';
import type { ProviderAdapter, ProviderChunk } from '../provider-adapter.js';

/**
 * An adapter whose every chunk (text, thinking, tool calls and results, rate-limit notices, the
 * end with its text, failure message and evidence) has the attempt's secrets masked, and whose
 * thrown errors do too: what a provider says is recorded, streamed and logged only after this.
 * Some gateways echo the key they were sent in their error text, and an agent may print its
 * environment in a tool's result.
 *
 * Streamed text may cut a secret between two chunks, so the end of each text (and thinking)
 * chunk that could start a secret is held back and sent with the next chunk of its kind, or
 * before any other chunk; a chunk whose whole text is held is still passed on, empty, so the
 * watchdogs see the provider is alive.
 */
export function withSecretsMasked(adapter: ProviderAdapter, mask: SecretMask): ProviderAdapter {
  if (mask.isEmpty) return adapter;
  return {
    id: adapter.id,
    async *run(request, ctx) {
      const held: Record<'text' | 'thinking', string> = { text: '', thinking: '' };
      function* release(): Generator<ProviderChunk> {
        for (const type of ['text', 'thinking'] as const) {
          if (held[type] === '') continue;
          yield { type, text: mask.text(held[type]) };
          held[type] = '';
        }
      }
      try {
        for await (const chunk of adapter.run(request, ctx)) {
          if (chunk.type === 'text' || chunk.type === 'thinking') {
            const { emit, hold } = mask.splitStream(held[chunk.type] + chunk.text);
            held[chunk.type] = hold;
            yield { type: chunk.type, text: emit };
            continue;
          }
          if (chunk.type !== 'stream_open') yield* release();
          yield mask.deep(chunk);
        }
        yield* release();
      } catch (thrown) {
        // A fresh error, without the original as its cause: the cause's message may hold the secret.
        const err = coerceError(thrown);
        throw new Error(mask.text(err.message));
      }
    },
  };
}
