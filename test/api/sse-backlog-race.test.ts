import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { listen, makeTestApp } from '../helpers/app.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runEvent, seedRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * The real store, except that a conversation stream's backlog read waits at two gates: one
 * before it queries and one before it returns. Only the tailer reads without a filter, so the
 * live feed is never held. This pins down the two races of joining a backlog to a live feed.
 */
function gatedBacklogStore(store: Store) {
  const before = gate();
  const after = gate();
  const arrived = gate();
  const queried = gate();
  const gated: Store = Object.create(store) as Store;
  gated.listEventsAfter = async (afterSeq, limit, filter) => {
    if (!filter?.conversationId) return store.listEventsAfter(afterSeq, limit, filter);
    arrived.open();
    await before.opened;
    const rows = await store.listEventsAfter(afterSeq, limit, filter);
    queried.open();
    await after.opened;
    return rows;
  };
  return {
    store: gated,
    before,
    after,
    backlogStarted: () => arrived.opened,
    backlogQueried: () => queried.opened,
  };
}

it('delivers rows committed before, during and after the backlog read exactly once', async () => {
  const gated = gatedBacklogStore(home.openStore());
  const { app, writer } = await makeTestApp(home, { store: gated.store });
  const url = await listen(app);
  const run = await seedRun(writer, { conversationId: 'conv-race' });
  const seq = (rows: { seq: number }[]) => rows.map((r) => r.seq);
  const early = seq(await writer.appendEvents([1, 2, 3].map((i) => runEvent(run, 'node_started', `a${i}`))));

  // The dashboard has no backlog; when it has seen a row, the tailer has handed it to every stream.
  const dashboard = await openSse(`${url}/api/stream/__dashboard__`);
  await dashboard.until((f) => f.length >= 1);
  const tailerDelivered = (id: number) => dashboard.until((f) => f.some((frame) => frame.id === id));

  const stream = openSse(`${url}/api/stream/conv-race`, { lastEventId: 0 });
  await gated.backlogStarted();
  // Committed after the stream subscribed but before its backlog query: both paths carry them.
  const during = seq(await writer.appendEvents([1, 2].map((i) => runEvent(run, 'node_started', `b${i}`))));
  await tailerDelivered(during[1]!);
  gated.before.open();
  await gated.backlogQueried();
  // Committed after the backlog query read its rows but before they were sent: only live has them.
  const late = seq(await writer.appendEvents([1, 2].map((i) => runEvent(run, 'node_started', `c${i}`))));
  await tailerDelivered(late[1]!);
  gated.after.open();

  const client = await stream;
  const expected = [...early, ...during, ...late];
  await client.until((f) => f.some((frame) => frame.id === late[1]));
  const after = seq(await writer.appendEvents([runEvent(run, 'node_completed', 'd')]));
  await client.until((f) => f.some((frame) => frame.id === after[0]));
  expect(client.frames.filter((f) => f.id !== undefined).map((f) => f.id)).toEqual([...expected, ...after]);
  client.close();
  dashboard.close();
});
