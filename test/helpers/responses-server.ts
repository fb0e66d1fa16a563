import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks the OpenAI Responses API's streaming wire format
 * (`POST /v1/responses` with `stream: true`): named SSE events `response.created`,
 * `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta`, `response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done` and `response.completed` (with `usage`), each `data:` line a JSON
 * object carrying its own `type` and `sequence_number`; or the API's error bodies
 * (`{ error: { message, type, param, code } }`) with their status and headers (`Retry-After`);
 * or a `response.failed` event inside a 200 stream. The real Codex CLI talks to it in tests.
 */

/** Usage as the API reports it; a key left out is not sent at all. */
export interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number };
  total_tokens?: number;
}

export type ResponsesReply =
  | {
      kind: 'stream';
      model?: string;
      deltas: string[];
      /** Sent in `response.completed`; `null`: the response carries no usage at all. */
      usage?: ResponsesUsage | null;
      /** Send `response.created` and the first delta, then nothing (the idle watchdog's case). */
      stallAfterFirst?: boolean;
    }
  | { kind: 'error'; status: number; type?: string; code?: string; message: string; headers?: Record<string, string> }
  /** A 200 stream that reports `response.failed` with this error. */
  | { kind: 'failed'; code: string; message: string }
  /** Headers are sent, then nothing: no event ever arrives. */
  | { kind: 'hang' };

export interface ResponsesRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface ResponsesServer {
  url: string;
  /** Every POST to `/v1/responses`, in order. */
  requests: ResponsesRequest[];
  close(): Promise<void>;
}

export async function startResponsesServer(reply: (req: ResponsesRequest, index: number) => ResponsesReply): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !path.endsWith('/responses')) {
        // Anything else a client asks for (a model list) gets an empty valid answer.
        res.writeHead(path.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(path.endsWith('/models') ? { object: 'list', data: [], models: [] } : { error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      const recorded: ResponsesRequest = { path, headers: req.headers, body: safeJson(raw) };
      requests.push(recorded);
      answer(res, reply(recorded, requests.length - 1), typeof recorded.body?.model === 'string' ? recorded.body.model : 'gpt-test');
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

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return { raw };
  }
}

let counter = 0;

function answer(res: ServerResponse, reply: ResponsesReply, requestedModel: string): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'invalid_request_error', param: null, code: reply.code ?? null } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.kind === 'hang') return void res.flushHeaders();
  const n = ++counter;
  const responseId = `resp_test${n}`;
  const itemId = `msg_test${n}`;
  const model = reply.kind === 'stream' ? (reply.model ?? requestedModel) : requestedModel;
  let seq = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    model,
    output: [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: null,
    ...extra,
  });
  send('response.created', { response: response('in_progress') });
  send('response.in_progress', { response: response('in_progress') });
  if (reply.kind === 'failed') {
    send('response.failed', { response: response('failed', { error: { code: reply.code, message: reply.message } }) });
    res.end();
    return;
  }
  send('response.output_item.added', { output_index: 0, item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
  send('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  const deltas = reply.stallAfterFirst ? reply.deltas.slice(0, 1) : reply.deltas;
  for (const delta of deltas) send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] });
  if (reply.stallAfterFirst) return;
  const text = reply.deltas.join('');
  const part = { type: 'output_text', text, annotations: [], logprobs: [] };
  const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
  send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] });
  send('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part });
  send('response.output_item.done', { output_index: 0, item });
  const usage =
    reply.usage === null
      ? null
      : (reply.usage ?? { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 });
  send('response.completed', { response: response('completed', { output: [item], usage }) });
  res.end();
}
