import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server that speaks the Gemini API's streaming wire format
 * (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`: `data: {GenerateContentResponse}`
 * events with `candidates[].content.parts[].text`, `finishReason`, `usageMetadata` and
 * `modelVersion`), or the API's error bodies (`{ error: { code, message, status } }`) with their
 * status and headers. Any other model call (`:generateContent`, the CLI's own checks) gets a short
 * valid JSON answer. The real Gemini CLI talks to it in tests.
 */

export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

export type GeminiReply =
  | { kind: 'stream'; modelVersion?: string; deltas: string[]; usage?: GeminiUsage }
  | { kind: 'error'; status: number; googleStatus: string; message: string; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface GeminiRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface GeminiServer {
  url: string;
  /** Every `:streamGenerateContent` request, in order. */
  requests: GeminiRequest[];
  close(): Promise<void>;
}

export async function startGeminiServer(reply: (req: GeminiRequest, index: number) => GeminiReply): Promise<GeminiServer> {
  const requests: GeminiRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: any;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        body = { raw };
      }
      if (!path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '{}' }] }, finishReason: 'STOP', index: 0 }] }));
        return;
      }
      const recorded = { path, headers: req.headers, body };
      requests.push(recorded);
      answer(res, reply(recorded, requests.length - 1));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: GeminiReply): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ error: { code: reply.status, message: reply.message, status: reply.googleStatus } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (reply.kind === 'hang') return void res.flushHeaders();
  const modelVersion = reply.modelVersion ?? 'gemini-test';
  const send = (event: unknown) => res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  for (const text of reply.deltas) send({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], modelVersion });
  send({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: reply.usage ?? { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
    modelVersion,
  });
  res.end();
}
