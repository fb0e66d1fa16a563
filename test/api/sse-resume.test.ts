import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../src/store/schemas/run.js';
import { listen, makeTestApp } from '../helpers/app.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { runEvent, seedRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/**
 * Starts a separate process that appends events to `runs` in small transactions until stopped:
 * its commits interleave with the API's reads as a supervisor's would.
 */
async function startWriter(home: TempHome, runs: Run[]) {
  const args = [home.paths.database, ...runs.map((r) => `${r.id}:${r.conversation_id}`)];
  const child = fork(writerScript, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  home.defer(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const message = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.on('message', (m: Record<string, unknown>) => m.type === type && resolve(m));
      child.once('exit', (code) => reject(new Error(`event writer exited (${code}) before '${type}'`)));
    });
  await message('started');
  return {
    async stop(): Promise<number> {
      const stopped = message('stopped');
      child.send({ type: 'stop' });
      return (await stopped).written as number;
    },
  };
}

const writerScript = fileURLToPath(new URL('./event-writer-process.ts', import.meta.url));

const eventIds = (client: SseClient) => client.frames.filter((f) => f.id !== undefined).map((f) => f.id!);

describe('resuming a stream with Last-Event-ID', () => {
  it('delivers every event exactly once across reconnects while another process keeps writing', async () => {
    const { app, store } = await makeTestApp(home);
    const url = await listen(app);
    const runs = [await seedRun(store, { conversationId: 'c1' }), await seedRun(store, { conversationId: 'c2' })];
    const stream = `${url}/api/stream/__dashboard__`;
    const received: number[] = [];
    const writer = await startWriter(home, runs);

    let client = await openSse(stream, { lastEventId: 0 });
    for (const target of [200, 600, 1200, 2000]) {
      await client.until(() => received.length + eventIds(client).length >= target);
      received.push(...eventIds(client));
      client.close();
      await client.ended;
      const lastSeqAtClose = await store.lastEventSeq();
      client = await openSse(stream, { lastEventId: received.at(-1)! });
      await client.until((f) => f.length >= 1);
      // Rows were committed while the client was away, so the resume had something to catch up on.
      await waitFor(async () => (await store.lastEventSeq()) > lastSeqAtClose, { what: 'writes during reconnect' });
    }
    const written = await writer.stop();
    const all = (await store.listEventsAfter(0, 1_000_000)).map((e) => e.seq);
    expect(all).toHaveLength(written);
    await client.until(() => received.length + eventIds(client).length >= all.length);
    received.push(...eventIds(client));
    client.close();

    expect(new Set(received).size).toBe(received.length);
    expect(received).toEqual(all);
  });

  it('replays only the missed events of its own conversation', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const mine = await seedRun(store, { conversationId: 'conv-mine' });
    const theirs = await seedRun(store, { conversationId: 'conv-theirs' });
    const seen = await writer.appendEvents([runEvent(mine, 'node_started', 'a'), runEvent(theirs, 'node_started', 'x')]);
    const missed = await writer.appendEvents([
      runEvent(theirs, 'node_completed', 'x'),
      runEvent(mine, 'node_completed', 'a'),
      runEvent(mine, 'node_started', 'b'),
    ]);

    const client = await openSse(`${url}/api/stream/conv-mine`, { lastEventId: seen[0]!.seq });
    await client.until(() => eventIds(client).length >= 2);
    const live = await writer.appendEvents([runEvent(theirs, 'node_started', 'y'), runEvent(mine, 'node_completed', 'b')]);
    const later = live[1]!.seq;
    await client.until(() => eventIds(client).includes(later));
    expect(eventIds(client)).toEqual([missed[1]!.seq, missed[2]!.seq, later]);
    client.close();
  });

  it('takes lastEventId from the query when the client cannot set headers, and prefers the header', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const run = await seedRun(store);
    const events = await writer.appendEvents([1, 2, 3, 4].map((i) => runEvent(run, 'node_started', `n${i}`)));

    const byQuery = await openSse(`${url}/api/stream/__dashboard__?lastEventId=${events[1]!.seq}`);
    await byQuery.until((f) => eventIds(byQuery).length >= 2);
    expect(eventIds(byQuery)).toEqual([events[2]!.seq, events[3]!.seq]);
    byQuery.close();

    const both = await openSse(`${url}/api/stream/__dashboard__?lastEventId=${events[0]!.seq}`, {
      lastEventId: events[2]!.seq,
    });
    await both.until(() => eventIds(both).length >= 1);
    const [next] = await writer.appendEvents([runEvent(run, 'node_started', 'n5')]);
    await both.until(() => eventIds(both).includes(next!.seq));
    expect(eventIds(both)).toEqual([events[3]!.seq, next!.seq]);
    both.close();
  });

  it('replays a backlog longer than one read, in order', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const run = await seedRun(store);
    const events = await writer.appendEvents(Array.from({ length: 1234 }, (_, i) => runEvent(run, 'node_started', `n${i}`)));
    const client = await openSse(`${url}/api/stream/__dashboard__`, { lastEventId: 0 });
    await client.until(() => eventIds(client).length >= events.length);
    expect(eventIds(client)).toEqual(events.map((e) => e.seq));
    client.close();
  });
});
