import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { TailFrame } from '../../src/api/sse/event-tailer.js';
import { StreamClient, type CloseReason } from '../../src/api/sse/stream-client.js';
import { waitFor } from '../helpers/wait-for.js';

/** A real Writable whose reader only takes data when told to: a client on a slow link. */
function slowSink() {
  const written: string[] = [];
  const waiting: (() => void)[] = [];
  const sink = new Writable({
    highWaterMark: 256,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      waiting.push(done);
    },
  });
  return {
    sink,
    written,
    /** Lets the reader take everything written so far (and keep up from now on). */
    readAll() {
      while (waiting.length) waiting.shift()!();
    },
    ids: () => written.flatMap((text) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))),
  };
}

const frame = (seq: number): TailFrame => ({
  seq,
  conversationId: 'c',
  runId: 'r',
  text: `id: ${seq}\ndata: ${JSON.stringify({ type: 'workflow_event', seq, pad: 'x'.repeat(100) })}\n\n`,
});

function makeClient(sink: Writable, opts: { maxQueuedFrames: number; backlog?: TailFrame[]; afterSeq?: number; startSeq?: number }) {
  const closed: CloseReason[] = [];
  const client = new StreamClient({
    sink,
    matches: () => true,
    afterSeq: opts.afterSeq,
    startSeq: opts.afterSeq ?? opts.startSeq ?? 0,
    readBacklog: async (afterSeq, limit) => (opts.backlog ?? []).filter((f) => f.seq > afterSeq).slice(0, limit),
    maxQueuedFrames: opts.maxQueuedFrames,
    heartbeatMs: 60_000,
    now: () => 0,
    onClose: (reason) => closed.push(reason),
  });
  return { client, closed };
}

describe('StreamClient', () => {
  it('drops a client that stops reading once its queue passes the cap, instead of growing memory', async () => {
    const slow = slowSink();
    const { client, closed } = makeClient(slow.sink, { maxQueuedFrames: 20 });
    await client.run();
    for (let seq = 1; seq <= 1000; seq++) client.receive(frame(seq));

    expect(closed).toEqual(['too_slow']);
    expect(client.isClosed).toBe(true);
    expect(slow.sink.destroyed).toBe(true);
    // Nothing past the cap was written or kept: the socket held a few frames, the queue at most 21.
    expect(slow.ids().length).toBeLessThan(25);
  });

  it('holds frames while the client is slow and sends them in order, once, when it catches up', async () => {
    const slow = slowSink();
    const { client, closed } = makeClient(slow.sink, { maxQueuedFrames: 100 });
    await client.run();
    for (let seq = 1; seq <= 60; seq++) client.receive(frame(seq));
    expect(slow.ids().length).toBeLessThan(60);
    slow.readAll();
    await waitFor(() => {
      slow.readAll();
      return slow.ids().length === 60;
    }, { what: 'all frames written' });
    for (let seq = 61; seq <= 70; seq++) client.receive(frame(seq));
    slow.readAll();
    await waitFor(() => {
      slow.readAll();
      return slow.ids().length === 70;
    }, { what: 'live frames after catching up' });
    expect(slow.ids()).toEqual(Array.from({ length: 70 }, (_, i) => i + 1));
    expect(closed).toEqual([]);
    client.close('server_closing');
  });

  it('replays the backlog, then live frames, skipping the rows both carry', async () => {
    const slow = slowSink();
    const backlog = Array.from({ length: 8 }, (_, i) => frame(i + 1));
    const { client } = makeClient(slow.sink, { maxQueuedFrames: 100, backlog, afterSeq: 2 });
    // Rows 7..10 reach the live feed before the backlog (which also holds 7 and 8) is sent.
    for (const seq of [7, 8, 9, 10]) client.receive(frame(seq));
    const running = client.run();
    slow.readAll();
    await running;
    await waitFor(() => {
      slow.readAll();
      return slow.ids().length >= 8;
    }, { what: 'backlog and live frames' });
    expect(slow.ids()).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    // The hello frame names where the stream resumed.
    expect(slow.written[0]).toMatch(/^retry: 250\ndata: \{"type":"heartbeat","timestamp":0,"position":2\}\n\n$/);
    client.close('server_closing');
  });

  it('opened live at the feed’s position, names it in the hello frame and sends only what follows it', async () => {
    const slow = slowSink();
    const { client } = makeClient(slow.sink, { maxQueuedFrames: 100, startSeq: 41 });
    // A frame the feed had handed out before this stream subscribed is not one of its own.
    client.receive(frame(41));
    const running = client.run();
    slow.readAll();
    await running;
    for (const seq of [42, 43]) client.receive(frame(seq));
    await waitFor(() => {
      slow.readAll();
      return slow.ids().length >= 2;
    }, { what: 'live frames' });
    expect(slow.ids()).toEqual([42, 43]);
    expect(slow.written[0]).toMatch(/^retry: 250\ndata: \{"type":"heartbeat","timestamp":0,"position":41\}\n\n$/);
    client.close('server_closing');
  });
});
