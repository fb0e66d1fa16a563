import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small local stand-in for the Anthropic Messages API, so `cairn stress` runs AI nodes through
 * the real `anthropic` adapter with no network and no key. `POST /v1/messages` answers with the
 * event stream the real API sends (`message_start`, one text block, `message_delta`,
 * `message_stop`) after a delay of 100-600 ms fixed by the prompt, so a kill can land while a
 * call is open. Anything else is a 404 in the API's error shape.
 */

export interface StandInMessagesApi {
  /** The base URL for `ANTHROPIC_BASE_URL`. */
  url: string;
  /** Messages requests answered (started streams) so far. */
  calls(): number;
  close(): Promise<void>;
}

function send(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function answerText(body: string): { text: string; delayMs: number } {
  const digest = createHash('sha256').update(body).digest();
  return { text: `stand-in-${digest.toString('hex').slice(0, 8)}`, delayMs: 100 + (digest.readUInt16BE(0) % 500) };
}

function stream(res: ServerResponse, model: string, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_stand_in' });
  send(res, 'message_start', {
    type: 'message_start',
    message: {
      id: 'msg_stand_in', type: 'message', role: 'assistant', content: [], model,
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 },
    },
  });
  send(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  send(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  send(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  send(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } });
  send(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function modelOf(raw: string): string {
  try {
    const model = (JSON.parse(raw) as { model?: unknown }).model;
    return typeof model === 'string' ? model : 'stand-in';
  } catch {
    return 'stand-in';
  }
}

/** Starts the stand-in on a free loopback port. */
export async function startStandInMessagesApi(): Promise<StandInMessagesApi> {
  let calls = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `${req.method} ${req.url} is not served by the stand-in` } }));
        return;
      }
      calls++;
      const { text, delayMs } = answerText(raw);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) stream(res, modelOf(raw), text);
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
