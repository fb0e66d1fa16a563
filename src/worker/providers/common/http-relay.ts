import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { socketCodeOf } from '../../../shared/socket-error.js';

/**
 * A loopback relay between a vendor CLI and its model server, for one attempt. The CLI is
 * pointed at the relay; the relay forwards every request unchanged (the CLI's own credential
 * header included: the relay adds none and logs none) and streams the answer back, noting what
 * the CLI does not print: each answer's HTTP status, its rate-limit headers, the start of an
 * error body, and the model an SSE stream names. Codex, for one, says "429 Too Many Requests"
 * without the `Retry-After` the server sent, and a 500 as "high demand".
 */

/** What the relay saw of one answer. */
export interface RelayedAnswer {
  /** The request's path and query, as the CLI sent it. */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** The first 4 KB of a non-2xx body (the API's `{ error: { type, code, message } }`). */
  errorBody?: string;
}

export interface HttpRelay {
  /** The relay's base URL: the upstream's path is kept, only the origin changes. */
  url: string;
  answers: RelayedAnswer[];
  /** The `model` the last streamed response named (`response.created` / `response.completed`). */
  streamedModel: string | undefined;
  /** The `usage` of each streamed `response.completed`, in order; null when it carried none. */
  completedUsage: (Record<string, unknown> | null)[];
  /** Each streamed Chat Completions answer, in order: its `usage` chunk (null: none) and last `finish_reason`. */
  chatCompletions: ChatCompletionSeen[];
  close(): Promise<void>;
}

export interface ChatCompletionSeen {
  usage: Record<string, unknown> | null;
  finishReason?: string;
}

const ERROR_BODY_MAX = 4_096;
/**
 * Hop-by-hop headers and those fetch rewrites (it decompresses, so the length changes) or refuses
 * (`upgrade`, `expect`: fetch fails on them). `accept-encoding` too: the CLI's list names what the
 * CLI can decode, and the relay's fetch must decode the answer (it strips `content-encoding`).
 * Codex 0.171 asks for `zstd`, which Node 20's fetch passes through undecoded: a server that
 * honoured it sent the CLI compressed bytes as plain text. Left out, fetch asks for what it decodes.
 */
const dropRequest = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'accept-encoding']);
const dropResponse = new Set(['connection', 'content-length', 'content-encoding', 'transfer-encoding', 'keep-alive']);

/**
 * Starts a relay on 127.0.0.1 (a free port) in front of `upstream` (`https://api.openai.com/v1`).
 * `onRefused` hears of each non-2xx answer once its body is read (an adapter may stop its CLI there).
 */
export async function startHttpRelay(upstream: string, onRefused?: (answer: RelayedAnswer) => void): Promise<HttpRelay> {
  const base = new URL(upstream);
  const basePath = base.pathname.replace(/\/$/, '');
  const inFlight = new Set<AbortController>();
  const relay: HttpRelay = { url: '', answers: [], streamedModel: undefined, completedUsage: [], chatCompletions: [], close: async () => undefined };
  const server: Server = createServer((req, res) => void forward(req, res));
  // An upgrade (a WebSocket transport, h2c) cannot go through fetch: the connection is closed, which
  // a client takes as "not offered" and falls back to plain HTTP. It is no answer of the server's.
  server.on('upgrade', (_req, socket) => socket.destroy());

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => controller.abort());
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || dropRequest.has(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const path = (req.url ?? '/').startsWith(basePath) ? (req.url ?? '/').slice(basePath.length) : (req.url ?? '/');
      const target = `${base.origin}${basePath}${path}`;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(target, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}), signal: controller.signal });
      const seen: RelayedAnswer = { path: req.url ?? '/', status: answer.status, headers: {} };
      answer.headers.forEach((value, name) => (seen.headers[name] = value));
      relay.answers.push(seen);
      const outHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(seen.headers)) if (!dropResponse.has(name)) outHeaders[name] = value;
      res.writeHead(answer.status, outHeaders);
      const ok = answer.status >= 200 && answer.status < 300;
      const sse = (seen.headers['content-type'] ?? '').includes('text/event-stream');
      let pending = '';
      let errorText = '';
      const chat: ChatStream = { seen: false, usage: null };
      if (answer.body) {
        for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
          res.write(chunk);
          const text = Buffer.from(chunk).toString('utf8');
          if (!ok && errorText.length < ERROR_BODY_MAX) errorText += text;
          if (ok && sse) pending = noteEvents(relay, pending + text, chat);
        }
      }
      if (chat.seen) relay.chatCompletions.push({ usage: chat.usage, ...(chat.finishReason !== undefined ? { finishReason: chat.finishReason } : {}) });
      if (!ok) seen.errorBody = errorText.slice(0, ERROR_BODY_MAX);
      res.end();
      if (!ok) onRefused?.(seen);
    } catch (err) {
      if (!res.headersSent && !controller.signal.aborted) {
        // The upstream could not be reached: the CLI sees a 502 and reports it as it would any.
        // Its reason names the address tried and the socket's own code (ECONNREFUSED, ENOTFOUND …).
        const reason = `cannot connect to the provider at ${upstream}: ${socketCodeOf(err) ?? (err as Error).message}`;
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', code: null, message: reason } }));
        const seen: RelayedAnswer = { path: req.url ?? '/', status: 502, headers: {}, errorBody: `connection failed: ${reason}` };
        relay.answers.push(seen);
        onRefused?.(seen);
      } else {
        res.destroy();
      }
    } finally {
      inFlight.delete(controller);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  relay.url = `http://127.0.0.1:${port}${basePath}`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      for (const c of inFlight) c.abort();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}

/** What one streamed Chat Completions answer said so far. */
interface ChatStream {
  seen: boolean;
  usage: Record<string, unknown> | null;
  finishReason?: string;
}

/** Reads the complete SSE lines of `text` for a response's model and usage; returns the unfinished rest. */
function noteEvents(relay: HttpRelay, text: string, chat: ChatStream): string {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  for (const line of lines) {
    if (line.startsWith('data:') && line.includes('"chat.completion.chunk"')) {
      noteChatChunk(relay, line, chat);
      continue;
    }
    if (!line.startsWith('data:') || !line.includes('"response')) continue;
    try {
      const event = JSON.parse(line.slice(5).trim());
      const model = event?.response?.model;
      if (typeof model === 'string' && model !== '') relay.streamedModel = model;
      if (event?.type === 'response.completed') {
        const usage = event.response?.usage;
        relay.completedUsage.push(usage && typeof usage === 'object' ? usage : null);
      }
    } catch {
      // Not JSON: nothing to note.
    }
  }
  // A line never ends: keep at most a bounded tail.
  return rest.length > 65_536 ? '' : rest;
}

/** A Chat Completions stream chunk: its model, its usage (the chunk `stream_options.include_usage` asks for), its finish reason. */
function noteChatChunk(relay: HttpRelay, line: string, chat: ChatStream): void {
  try {
    const event = JSON.parse(line.slice(5).trim());
    chat.seen = true;
    if (typeof event?.model === 'string' && event.model !== '') relay.streamedModel = event.model;
    if (event?.usage && typeof event.usage === 'object') chat.usage = event.usage;
    for (const choice of Array.isArray(event?.choices) ? event.choices : []) {
      if (typeof choice?.finish_reason === 'string') chat.finishReason = choice.finish_reason;
    }
  } catch {
    // Not JSON: nothing to note.
  }
}

