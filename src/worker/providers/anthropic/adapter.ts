import type { AdapterContext, ProviderAdapter, ProviderChunk, ProviderRequest } from '../provider-adapter.js';

/**
 * The `anthropic` provider (its call through the vendor's SDK is sdk-call.ts). The SDK and the call
 * are loaded on the first call, not with the adapter table: a worker thread that runs only
 * bash nodes or CLI providers (and every thread's start) does without the SDK's modules.
 */
export const anthropicAdapter: ProviderAdapter = {
  id: 'anthropic',
  run: (request, ctx) => lazyCall(request, ctx),
};

async function* lazyCall(request: ProviderRequest, ctx: AdapterContext): AsyncGenerator<ProviderChunk> {
  const { runAnthropic } = await import('./sdk-call.js');
  yield* runAnthropic(request, ctx);
}
