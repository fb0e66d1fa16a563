import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../helpers/wait-for.js';
import { sdkFetch } from '../../../../src/worker/providers/common/sdk-fetch.js';

/** The vendor SDKs' fetch (undici's request under a WHATWG Response) against a real local HTTP server. */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  closed: Promise<void>;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, closed: new Promise((resolve) => res.on('close', () => resolve())) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

describe('sdkFetch', () => {
  it('sends method, headers and body as given and streams the answer with its status and headers', async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'text/event-stream', 'retry-after': '7', 'set-cookie': ['a=1', 'b=2'] });
      res.write('data: one\n\n');
      setTimeout(() => res.end('data: two\n\n'), 20);
    });
    const response = await sdkFetch(new URL(`${url}/v1/chat/completions?x=1`), {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer sk-test', 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'm', q: "it's \"quoted\" ünïcode" }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('data: one\n\ndata: two\n\n');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions?x=1', body: JSON.stringify({ model: 'm', q: "it's \"quoted\" ünïcode" }) });
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('answers a 204 with no body', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const response = await sdkFetch(url, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('stops a call whose signal aborts before the answer, and one whose body is still streaming', async () => {
    const { url, seen } = await serve((req, res) => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
      } // '/silent' never answers
    });
    const early = new AbortController();
    const silent = sdkFetch(`${url}/silent`, { method: 'POST', body: '{}', signal: early.signal });
    // Aborted once the server holds the request (on a busy machine a fixed delay could abort it
    // before it was even sent, and there would be no connection to see closed).
    await waitFor(() => seen.length > 0, { what: 'the silent request to reach the server' });
    early.abort();
    await expect(silent).rejects.toThrow();
    await seen[0]!.closed; // the connection was closed, not left hanging on the server

    const late = new AbortController();
    const response = await sdkFetch(`${url}/stream`, { method: 'POST', body: '{}', signal: late.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    late.abort();
    await expect(reader.read()).rejects.toBeDefined();
    await seen[1]!.closed;
  });

  it('throws a TypeError with the cause when nothing answers, as global fetch does', async () => {
    const { url } = await serve(() => {});
    const port = new URL(url).port;
    server!.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const failed = await sdkFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(TypeError);
    expect(String((failed as TypeError).cause)).toMatch(/ECONNREFUSED/);
  });

  it('hands a body of another kind (a form) to the global fetch', async () => {
    const { url, seen } = await serve((_req, res) => res.end('ok'));
    const response = await sdkFetch(url, { method: 'POST', body: new URLSearchParams({ a: '1 & 2' }) });
    expect(await response.text()).toBe('ok');
    expect(seen[0]!.body).toBe('a=1+%26+2');
    expect(seen[0]!.headers['content-type']).toMatch(/application\/x-www-form-urlencoded/);
  });
});
