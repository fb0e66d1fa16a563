import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import type { SpendObservations } from '../../../records/spend.js';
import { adapterFailure, bodyResetFacts, classifyFailure, connectionFailure, retryFacts } from '../common/failure-class.js';
import { sdkFetch } from '../common/sdk-fetch.js';
import type { AdapterContext, AdapterFailure, ProviderChunk, ProviderRequest } from '../provider-adapter.js';

/**
 * Any server with the OpenAI Chat Completions API, streamed (`openai` SDK): OpenAI itself,
 * Ollama, vLLM, llama.cpp ... For nodes that need a model and no tools. `output_format` is sent
 * as a `json_schema` response format, which servers honour to different degrees, so the answer
 * is always validated after the attempt.
 */

/** The SDK refuses to start without a key; local servers need none, so a placeholder goes out. */
const NO_KEY = 'not-needed';

/**
 * One SDK client per connection (key and base URL) for the thread's life: building one per
 * attempt cost a measurable share of a 20 ms call. Keyed by a hash, so no key sits in a map key.
 */
const clients = new Map<string, OpenAI>();

function clientFor(apiKey: string, baseUrl: string | undefined): OpenAI {
  const key = createHash('sha256').update(`${apiKey}\n${baseUrl ?? ''}`).digest('hex');
  let client = clients.get(key);
  if (!client) {
    client = new OpenAI({ apiKey, ...(baseUrl !== undefined ? { baseURL: baseUrl } : {}), maxRetries: 0, fetch: sdkFetch });
    clients.set(key, client);
  }
  return client;
}

export async function* runChat(request: ProviderRequest, ctx: AdapterContext): AsyncGenerator<ProviderChunk> {
  const observations: SpendObservations = {};
  let resolvedModel: string | undefined;
  let text = '';
  let called = false;
  if (request.model === undefined) {
    yield {
      type: 'end',
      called,
      observations,
      failure: adapterFailure('misconfigured', "no model is configured for provider 'openai-compatible': set the node's model or assistants.openai-compatible.model"),
    };
    return;
  }
  const client = clientFor(request.connection.apiKey ?? NO_KEY, request.connection.baseUrl);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    ...(request.systemPrompt !== undefined ? [{ role: 'system' as const, content: request.systemPrompt }] : []),
    { role: 'user', content: request.prompt },
  ];
  try {
    const stream = await client.chat.completions.create(
      {
        model: request.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(request.outputFormat !== undefined
          ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'output', schema: request.outputFormat, strict: true } } }
          : {}),
      },
      { signal: ctx.signal },
    );
    called = true;
    let chunks = 0;
    for await (const chunk of stream) {
      if (chunks++ === 0) yield { type: 'stream_open' };
      if (chunk.model) resolvedModel = chunk.model;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta as { content?: string | null; reasoning_content?: string | null } | undefined;
        if (delta?.reasoning_content) yield { type: 'thinking', text: delta.reasoning_content };
        if (delta?.content) {
          text += delta.content;
          yield { type: 'text', text: delta.content };
        }
        if (choice.finish_reason) observations.stopReason = choice.finish_reason;
      }
      if (chunk.usage) observations.tokens = tokensOf(chunk.usage);
    }
    if (chunks === 0) {
      yield { type: 'end', called, observations, failure: adapterFailure('transient', 'the stream ended without a single event') };
      return;
    }
  } catch (err) {
    // An HTTP answer (401, 429 ...) means the request reached the provider.
    if (err instanceof OpenAI.APIError && err.status !== undefined) called = true;
    yield { type: 'end', called, observations, ...(resolvedModel ? { resolvedModel } : {}), failure: failureOf(err, ctx.signal, client.baseURL) };
    return;
  }
  yield { type: 'end', called, text, observations, ...(resolvedModel ? { resolvedModel } : {}) };
}

/** `prompt_tokens` includes cached input; the cached part is reported as `cacheRead` when sent. */
function tokensOf(usage: OpenAI.Completions.CompletionUsage): unknown {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    input: usage.prompt_tokens,
    output: usage.completion_tokens,
    ...(typeof usage.total_tokens === 'number' ? { total: usage.total_tokens } : {}),
    ...(typeof cached === 'number' ? { cacheRead: cached } : {}),
  };
}

function failureOf(err: unknown, signal: AbortSignal, address: string): AdapterFailure {
  if (signal.aborted) return adapterFailure('transient', 'the call was stopped');
  if (err instanceof OpenAI.APIConnectionError) return connectionFailure(address, err);
  if (err instanceof OpenAI.APIError) {
    const code = typeof err.code === 'string' ? err.code : undefined;
    const evidence = [err.status !== undefined ? `HTTP ${err.status}` : undefined, code ?? err.type, err.message]
      .filter(Boolean)
      .join(' ');
    return adapterFailure(classifyFailure(err.status, code ?? err.type), evidence, { ...retryFacts(err.headers), ...bodyResetFacts(err.error) });
  }
  return adapterFailure('transient', (err as Error).message ?? String(err));
}
