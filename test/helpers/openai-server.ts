import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks the OpenAI Chat Completions API's streaming wire format
 * (`POST /v1/chat/completions` with `stream: true`: `data: {chat.completion.chunk}` lines, a
 * usage chunk when `stream_options.include_usage` is set, then `data: [DONE]`), or its error
 * bodies and headers. Ollama, vLLM and llama.cpp answer the same way.
 */

export type ChatReply =
  | {
      kind: 'stream';
      model?: string;
      deltas: string[];
      reasoning?: string[];
      finishReason?: string;
      /** Sent as the usage chunk; `null`: the server sends none (some local servers). */
      usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number; prompt_tokens_details?: { cached_tokens: number } } | null;
      stallAfterFirst?: boolean;
      /** Tool calls the answer ends with (`finish_reason: tool_calls` unless `finishReason` says otherwise). */
      toolCalls?: { id: string; name: string; arguments: string }[];
    }
  | { kind: 'error'; status: number; type?: string; code?: string; message: string; headers?: Record<string, string>; /** More keys of the body's `error` (the ChatGPT backend's `resets_in_seconds`). */ fields?: Record<string, unknown> }
  | { kind: 'hang' }
  | { kind: 'empty' };

export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: any;
  /** When the request arrived and when its connection closed (ms since the epoch). */
  openedAt?: number;
  closedAt?: number;
}

export interface OpenAiServer {
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** `delayMs`: each answer starts that long after its request arrived (a model's latency, for the bench). */
export async function startOpenAiServer(
  reply: (req: ChatRequest, index: number) => ChatReply,
  opts: { delayMs?: number; models?: readonly string[] } = {},
): Promise<OpenAiServer> {
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      // The model list, as the API answers it (`GET /v1/models`).
      const data = (opts.models ?? ['test-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data }));
      return;
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const recorded: ChatRequest = { headers: req.headers, body: JSON.parse(raw || '{}'), openedAt: Date.now() };
      res.on('close', () => (recorded.closedAt = Date.now()));
      requests.push(recorded);
      const chosen = reply(recorded, requests.length - 1);
      if (opts.delayMs) setTimeout(() => answer(res, chosen, recorded.body.model), opts.delayMs);
      else answer(res, chosen, recorded.body.model);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: ChatReply, requestedModel: string): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'invalid_request_error', param: null, code: reply.code ?? null, ...reply.fields } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.kind === 'hang') return void res.flushHeaders();
  if (reply.kind === 'empty') return void res.end();
  const model = reply.model ?? requestedModel;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  if (reply.stallAfterFirst) return;
  for (const r of reply.reasoning ?? []) chunk([{ index: 0, delta: { reasoning_content: r }, finish_reason: null }]);
  for (const d of reply.deltas) chunk([{ index: 0, delta: { content: d }, finish_reason: null }]);
  (reply.toolCalls ?? []).forEach((call, i) =>
    chunk([{ index: 0, delta: { tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] }, finish_reason: null }]),
  );
  chunk([{ index: 0, delta: {}, finish_reason: reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop') }]);
  if (reply.usage !== null) chunk([], { usage: reply.usage ?? { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
  res.end('data: [DONE]\n\n');
}
