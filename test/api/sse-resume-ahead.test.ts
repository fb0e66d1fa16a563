import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runEvent, seedRun } from './fixtures.js';

/**
 * A Last-Event-ID beyond the newest event (the database was reset, or the client talked to
 * another server) must not hide the events written after it connects: the stream resumes from
 * the newest event instead of waiting for the log to reach the client's id.
 */

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
});
afterEach(async () => {
  await home.close();
});

const eventIds = (client: SseClient) => client.frames.filter((f) => f.id !== undefined).map((f) => f.id!);

describe('resuming with an id beyond the newest event', () => {
  it('delivers every event written after connecting, and none of the old ones', async () => {
    const run = await seedRun(t.store, { conversationId: 'conv-ahead' });
    const old = await t.writer.appendEvents([runEvent(run, 'node_started', 'a'), runEvent(run, 'node_completed', 'a')]);
    const newest = old.at(-1)!.seq;

    const client = await openSse(`${url}/api/stream/conv-ahead`, { lastEventId: newest + 1000 });
    await client.until((frames) => frames.length >= 1); // the hello frame: the stream is open
    const later = await t.writer.appendEvents([runEvent(run, 'node_started', 'b'), runEvent(run, 'node_completed', 'b')]);
    await client.until(() => eventIds(client).length >= 2);
    expect(eventIds(client)).toEqual(later.map((e) => e.seq));
    expect(client.frames.find((f) => f.id === later[0]!.seq)?.data).toMatchObject({ type: 'dag_node', nodeId: 'b', status: 'running' });
    client.close();
  });

  it('does the same for ?lastEventId= on the dashboard stream', async () => {
    const run = await seedRun(t.store);
    const [old] = await t.writer.appendEvents([runEvent(run, 'node_started', 'a')]);

    const client = await openSse(`${url}/api/stream/__dashboard__?lastEventId=${old!.seq + 5}`);
    await client.until((frames) => frames.length >= 1);
    const [next] = await t.writer.appendEvents([runEvent(run, 'node_completed', 'a')]);
    await client.until(() => eventIds(client).includes(next!.seq));
    expect(eventIds(client)).toEqual([next!.seq]);
    client.close();
  });

  it('still replays exactly the missed events for an id that exists', async () => {
    const run = await seedRun(t.store);
    const events = await t.writer.appendEvents([1, 2, 3].map((i) => runEvent(run, 'node_started', `n${i}`)));
    const client = await openSse(`${url}/api/stream/__dashboard__`, { lastEventId: events[0]!.seq });
    await client.until(() => eventIds(client).length >= 2);
    expect(eventIds(client)).toEqual([events[1]!.seq, events[2]!.seq]);
    client.close();
  });
});
