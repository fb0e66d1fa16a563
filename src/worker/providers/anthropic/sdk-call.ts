import Anthropic from '@anthropic-ai/sdk';
import type { SpendObservations } from '../../../records/spend.js';
import { adapterFailure, classifyFailure, connectionFailure, retryFacts } from '../common/failure-class.js';
import type { AdapterContext, AdapterFailure, ProviderChunk, ProviderRequest } from '../provider-adapter.js';
import { sdkFetch } from '../common/sdk-fetch.js';

/**
 * The Anthropic Messages API, streamed (`@anthropic-ai/sdk`). For nodes that need a model and no
 * tools. `output_format` is enforced the way the API allows it: the schema becomes the one tool
 * the model must call, and the tool's input is the structured answer.
 */

/** Used when neither the node, the workflow nor the config names a model: the API requires one. */
export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-4-5';
const MAX_TOKENS = 8192;
const STRUCTURED_TOOL = 'structured_output';
const OAUTH_BETA = 'oauth-2025-04-20';

export async function* runAnthropic(request: ProviderRequest, ctx: AdapterContext): AsyncGenerator<ProviderChunk> {
  const { apiKey, authToken } = request.connection;
  const client = new Anthropic({
    apiKey: apiKey ?? null,
    // A request without a key still goes out: a local server may need none, a real one answers 401.
    // A subscription login's token is a bearer token, with the beta header the API asks for it.
    ...(apiKey === undefined
      ? {
          authToken: authToken ?? null,
          // Without either, the header is left out on purpose (the SDK would refuse to send).
          defaultHeaders: authToken !== undefined ? { 'anthropic-beta': OAUTH_BETA } : { 'x-api-key': null },
        }
      : {}),
    ...(request.connection.baseUrl !== undefined ? { baseURL: request.connection.baseUrl } : {}),
    // Retries are attempts of the node (with their own records and spend), never hidden here.
    maxRetries: 0,
    fetch: sdkFetch,
  });
  const observations: SpendObservations = {};
  let resolvedModel: string | undefined;
  let text = '';
  let called = false;
  let structured: unknown;
  let toolJson = '';
  let inputUsage: Record<string, unknown> = {};
  try {
    const stream = await client.messages.create(
      {
        model: request.model ?? ANTHROPIC_DEFAULT_MODEL,
        max_tokens: MAX_TOKENS,
        messages: [{ role: 'user', content: request.prompt }],
        ...(request.systemPrompt !== undefined ? { system: request.systemPrompt } : {}),
        ...(request.outputFormat !== undefined
          ? {
              tools: [{ name: STRUCTURED_TOOL, description: 'Give the answer in this shape.', input_schema: request.outputFormat as Anthropic.Tool.InputSchema }],
              tool_choice: { type: 'tool' as const, name: STRUCTURED_TOOL },
            }
          : {}),
        stream: true,
      },
      { signal: ctx.signal },
    );
    called = true;
    let events = 0;
    for await (const event of stream) {
      events++;
      switch (event.type) {
        case 'message_start':
          resolvedModel = event.message.model || undefined;
          inputUsage = { ...event.message.usage };
          yield { type: 'stream_open' };
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') toolJson = '';
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') {
            text += event.delta.text;
            yield { type: 'text', text: event.delta.text };
          } else if (event.delta.type === 'thinking_delta') {
            yield { type: 'thinking', text: event.delta.thinking };
          } else if (event.delta.type === 'input_json_delta') {
            toolJson += event.delta.partial_json;
          }
          break;
        case 'content_block_stop':
          if (toolJson !== '') structured = parseJson(toolJson);
          toolJson = '';
          break;
        case 'message_delta':
          if (event.delta.stop_reason) observations.stopReason = event.delta.stop_reason;
          observations.tokens = tokensOf(inputUsage, event.usage as unknown as Record<string, unknown>);
          break;
        default:
          break;
      }
    }
    if (events === 0) {
      yield { type: 'end', called, observations, failure: adapterFailure('transient', 'the stream ended without a single event') };
      return;
    }
  } catch (err) {
    // An HTTP answer (401, 429 ...) means the request reached the provider.
    if (err instanceof Anthropic.APIError && err.status !== undefined) called = true;
    yield { type: 'end', called, observations, ...(resolvedModel ? { resolvedModel } : {}), failure: failureOf(err, ctx.signal, client.baseURL) };
    return;
  }
  if (observations.tokens === undefined) delete observations.tokens;
  yield {
    type: 'end',
    called,
    text: request.outputFormat !== undefined && structured !== undefined ? JSON.stringify(structured) : text,
    ...(structured !== undefined ? { structured } : {}),
    observations,
    ...(resolvedModel ? { resolvedModel } : {}),
  };
}

/**
 * Tokens as the API counts them: `input_tokens` excludes cached input, which is reported apart
 * (`cache_read_input_tokens`, `cache_creation_input_tokens`). A count the API left out stays out.
 */
function tokensOf(start: Record<string, unknown>, delta: Record<string, unknown> | undefined): unknown {
  const pick = (key: string) => (delta?.[key] ?? start[key]) as number | null | undefined;
  const input = pick('input_tokens');
  const output = delta?.output_tokens as number | undefined;
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  const cacheRead = pick('cache_read_input_tokens');
  const cacheWrite = pick('cache_creation_input_tokens');
  return {
    input,
    output,
    ...(typeof cacheRead === 'number' ? { cacheRead } : {}),
    ...(typeof cacheWrite === 'number' ? { cacheWrite } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function failureOf(err: unknown, signal: AbortSignal, address: string): AdapterFailure {
  if (signal.aborted) return adapterFailure('transient', 'the call was stopped');
  if (err instanceof Anthropic.APIConnectionError) return connectionFailure(address, err);
  if (err instanceof Anthropic.APIError) {
    const body = err.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type;
    const status = err.status;
    const evidence = [status !== undefined ? `HTTP ${status}` : undefined, type, body?.error?.message ?? err.message]
      .filter(Boolean)
      .join(' ');
    return adapterFailure(classifyFailure(status, type), evidence, retryFacts(err.headers));
  }
  return adapterFailure('transient', (err as Error).message ?? String(err));
}
