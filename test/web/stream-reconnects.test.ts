import { createServer, Socket, type Server } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { fanOutYaml, getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { openBrowser } from './browser.js';

/**
 * The dashboard's live stream survives dropped connections: a 5,000-node run writes 10,002
 * events while a proxy between the browser and the server cuts the page's stream 100 times.
 * The browser reconnects by itself (the server's `retry:`), resumes with `Last-Event-ID`, and
 * receives every event of the run exactly once: compared frame by frame with what the database
 * holds.
 */

const NODES = 5000;
const CUTS = 100;
/**
 * Each stream connection is cut once it has carried an event frame, or has been open this long
 * (near the run's end, when no event may come). The first is cut before it delivered any event:
 * the proxy holds back what the server sends until an event frame is among it, then drops it all.
 * The browser has no id to resume after; the page resumes after the position the stream's first
 * frame named.
 */
const QUIET_CUT_MS = 1000;

interface Connection {
  client: Socket;
  upstream: Socket;
  stream: boolean;
  frames: number;
  tail: string;
  cut: boolean;
  openedAt: number;
  /** While set, what the server sends waits here instead of reaching the browser. */
  held: Buffer[] | undefined;
  heldFrames: number;
}

/** A TCP proxy that knows which of its connections carry an SSE stream and can cut them. */
function streamProxy(): Promise<{ port: number; server: Server; setTarget(port: number): void; current(): Connection | undefined; streamsOpened(): number }> {
  let target = 0;
  let opened = 0;
  let current: Connection | undefined;
  const server = createServer((client) => {
    const upstream = new Socket();
    const conn: Connection = { client, upstream, stream: false, frames: 0, tail: '', cut: false, openedAt: Date.now(), held: undefined, heldFrames: 0 };
    upstream.connect(target, '127.0.0.1');
    client.on('data', (chunk: Buffer) => {
      if (chunk.subarray(0, 16).toString('latin1') === 'GET /api/stream/') {
        conn.stream = true;
        conn.openedAt = Date.now();
        opened++;
        current = conn;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (conn.stream) {
        const text = conn.tail + chunk.toString('utf8');
        // An id line starts every event frame (the body is chunked, so a chunk's size line may
        // stand between frames: count the lines, not the blank line before them).
        const frames = text.split('\nid: ').length - 1;
        conn.tail = text.slice(-6);
        if (conn.held) {
          conn.held.push(chunk);
          conn.heldFrames += frames;
          return;
        }
        conn.frames += frames;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      if (current === conn) current = undefined;
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({ port, server, setTarget: (p) => (target = p), current: () => current, streamsOpened: () => opened });
    });
  });
}

let home: TempHome;
let server: RunningServer;
let proxy: Awaited<ReturnType<typeof streamProxy>>;

beforeAll(async () => {
  proxy = await streamProxy();
  home = await makeTempHome();
  home.defer(() => new Promise<void>((resolve) => proxy.server.close(() => resolve())));
  // The page reaches the server through the proxy's port: a name the user allows, as behind a
  // reverse proxy (docs/dashboard.md).
  server = await startServer(home, { CAIRN_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`, CAIRN_MAX_CONCURRENCY: '4' });
  proxy.setTarget(Number(new URL(server.url).port));
  await writeHomeWorkflow(home, 'noisy', fanOutYaml('noisy', NODES, 'true'));
});

afterAll(async () => {
  await home?.close();
});

it('sends the frame docs/http-api.md shows first: a heartbeat with the reconnection delay and the stream position', async () => {
  const docs = await readFile(join(import.meta.dirname, '../../docs/http-api.md'), 'utf8');
  const shown = /The first frame, sent at once[\s\S]*?```\n([\s\S]*?)```/.exec(docs)?.[1];
  expect(shown).toBeDefined();
  const res = await fetch(`${server.url}/api/stream/__dashboard__`);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const first = text.slice(0, text.indexOf('\n\n') + 1);
  // No run has written an event yet: the stream's position is 0.
  expect(first.replace(/"timestamp":\d+/, '"timestamp":1767268800000')).toBe(shown);
});

it(`delivers each of a run's events once to a page whose stream is cut ${CUTS} times`, async () => {
  const browser = await openBrowser(home);
  const page = await browser.page();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const received: { id: string; runId: unknown }[] = [];
  cdp.on('Network.eventSourceMessageReceived', (message) => {
    if (message.eventId) received.push({ id: message.eventId, runId: (JSON.parse(message.data) as { runId?: unknown }).runId });
  });
  await page.goto(`http://127.0.0.1:${proxy.port}/`);
  await page.locator('[data-stream="live"]').waitFor();

  // The first connection loses the run's first events before it delivered any.
  const first = proxy.current()!;
  first.held = [];
  const { runId } = await startRun(server.url, 'noisy');
  await waitFor(() => first.heldFrames > 0, { what: 'an event frame held back from the first connection' });
  expect(first.frames).toBe(0);
  for (let cut = 0; cut < CUTS; cut++) {
    const conn = await waitFor(() => {
      const c = proxy.current();
      return c && !c.cut && (c.heldFrames > 0 || c.frames > 0 || Date.now() - c.openedAt > QUIET_CUT_MS) ? c : undefined;
    }, { timeoutMs: 30_000, what: `stream connection ${cut + 1} to open` });
    conn.cut = true;
    // The connection drops as when a network fails: a reset, both ways.
    conn.client.resetAndDestroy();
    conn.upstream.destroy();
  }
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'completed', { timeoutMs: 180_000, intervalMs: 200 });

  // What the database holds for the run, every page of it.
  const stored: number[] = [];
  for (let after = 0; ; ) {
    const res = await fetch(`${server.url}/api/workflows/runs/${runId}?afterSeq=${after}&limit=2000`);
    const body = (await res.json()) as { events: { seq: number }[]; nextAfterSeq: number | null };
    stored.push(...body.events.map((e) => e.seq));
    if (body.nextAfterSeq === null) break;
    after = body.nextAfterSeq;
  }
  // Each node started and completed, and the run queued, started and completed.
  expect(stored).toHaveLength(2 * NODES + 3);
  await waitFor(() => received.some((r) => Number(r.id) === stored.at(-1)), { timeoutMs: 60_000 });

  const ofRun = received.filter((r) => r.runId === runId).map((r) => Number(r.id));
  expect(new Set(ofRun).size).toBe(ofRun.length); // nothing doubled
  expect(ofRun).toEqual(stored); // nothing missing, in order
  expect(proxy.streamsOpened()).toBeGreaterThanOrEqual(CUTS + 1);
  // And what a person sees: the run's row says it completed.
  await expect.poll(() => page.locator(`tr[data-run="${runId}"] [data-status]`).getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
}, 300_000);
