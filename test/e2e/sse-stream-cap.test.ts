import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { streamLimitText } from '../../src/api/sse/sse-hub.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Every SSE stream holds one of the API process's descriptors. Real SSE clients against the real
 * `cairn serve`: past the cap (in all, or from one client address) a stream request gets a 503
 * with Retry-After naming the cap and its setting, and every other request is still answered.
 * Clients come from several loopback addresses (127.0.0.x) to be counted apart.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

interface Opened {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON body of a refusal. */
  body?: Record<string, unknown>;
  close(): void;
}

/** Opens the dashboard stream from `localAddress`: resolved at its first frame, or with the refusal read whole. */
function openStream(server: RunningServer, localAddress: string): Promise<Opened> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/api/stream/__dashboard__', localAddress, agent: false, headers: { accept: 'text/event-stream' } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const close = () => req.destroy();
      if (res.statusCode === 200) {
        res.once('data', () => resolve({ status: 200, headers: res.headers, close }));
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        close();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown>, close });
      });
    });
  });
}

async function health(server: RunningServer): Promise<Record<string, any>> {
  const res = await fetch(`${server.url}/api/health`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

it('caps streams per client address and in all, answering 503 with Retry-After and the cap’s setting; a closed stream frees its place', async () => {
  const server = await startServer(home, { CAIRN_MAX_STREAMS: '5', CAIRN_MAX_STREAMS_PER_CLIENT: '3' });
  const { streams } = await health(server);
  expect(streams).toEqual({ open: 0, max: 5, maxPerClient: 3, openFilesLimit: expect.any(Number) });

  const first = [];
  for (let i = 0; i < 3; i++) first.push(await openStream(server, '127.0.0.1'));
  expect(first.map((s) => s.status)).toEqual([200, 200, 200]);
  const perClient = await openStream(server, '127.0.0.1');
  expect(perClient.status).toBe(503);
  expect(perClient.headers['retry-after']).toBe('10');
  expect(perClient.body).toEqual({ code: 'STREAM_LIMIT_REACHED', error: streamLimitText.perClient('127.0.0.1', 3) });
  expect(perClient.body!.error).toContain('CAIRN_MAX_STREAMS_PER_CLIENT');

  const other = [await openStream(server, '127.0.0.2'), await openStream(server, '127.0.0.2')];
  expect(other.map((s) => s.status)).toEqual([200, 200]);
  const total = await openStream(server, '127.0.0.3');
  expect(total.status).toBe(503);
  expect(total.headers['retry-after']).toBe('10');
  expect(total.body).toEqual({ code: 'STREAM_LIMIT_REACHED', error: streamLimitText.total(5, streams.openFilesLimit) });
  expect(total.body!.error).toContain('CAIRN_MAX_STREAMS');

  // Everything else is still answered.
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
  expect((await health(server)).streams.open).toBe(5);

  first[0]!.close();
  await waitFor(async () => (await health(server)).streams.open === 4, { what: 'the closed stream to be counted out' });
  expect((await openStream(server, '127.0.0.3')).status).toBe(200);
  for (const stream of [...first, ...other]) stream.close();
});

it('under a 1024 open-file limit, a thousand stream clients get the 768 streams it allows and 503s, and every other request is answered', async () => {
  const server = await startServer(home, {}, { openFiles: { soft: 1024, hard: 1024 } });
  expect((await health(server)).streams).toEqual({ open: 0, max: 768, maxPerClient: 384, openFilesLimit: 1024 });

  const opened: Opened[] = [];
  const addresses = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
  for (let batch = 0; batch < 20; batch++) {
    opened.push(...(await Promise.all(Array.from({ length: 50 }, (_, i) => openStream(server, addresses[i % addresses.length]!)))));
  }
  try {
    expect(opened.filter((s) => s.status === 200)).toHaveLength(768);
    expect(opened.filter((s) => s.status === 503)).toHaveLength(232);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await health(server)).streams.open).toBe(768);
    const created = await fetch(`${server.url}/api/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(200);
  } finally {
    for (const stream of opened) stream.close();
  }
});

it('keeps the caps under the limit the API really runs with: Node raises its soft open-file limit to the hard one at start', async () => {
  const server = await startServer(home, {}, { openFiles: { soft: 1024, hard: 4096 } });
  // 4096 less a quarter kept for everything else; half of that per client address.
  expect((await health(server)).streams).toEqual({ open: 0, max: 3072, maxPerClient: 1536, openFilesLimit: 4096 });
});
