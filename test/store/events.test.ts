import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { newRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

function event(runId: string, conversationId: string, type: string) {
  return { run_id: runId, conversation_id: conversationId, event_type: type, step_name: null, data: { type } };
}

async function seed(store: Store) {
  const one = await store.createRun(newRun({ conversationId: 'conv-1' }));
  const two = await store.createRun(newRun({ conversationId: 'conv-2' }));
  return { one, two };
}

describe('events', () => {
  it('assigns increasing sequence numbers across connections, in commit order', async () => {
    const a = home.openStore();
    const b = home.openStore();
    const { one } = await seed(a);
    const written = [];
    for (let i = 0; i < 20; i++) {
      const store = i % 2 ? a : b;
      written.push(...(await store.appendEvents([event(one.id, 'conv-1', `e${i}`)])));
    }
    const seqs = written.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect((await a.listRunEvents(one.id)).map((e) => e.event_type)).toEqual(written.map((e) => e.event_type));
    expect(await b.lastEventSeq()).toBe(seqs[seqs.length - 1]);
  });

  it('reads the rows after a sequence number, filtered by conversation or run', async () => {
    const store = home.openStore();
    const { one, two } = await seed(store);
    await store.appendEvents([
      event(one.id, 'conv-1', 'a'),
      event(two.id, 'conv-2', 'b'),
      event(one.id, 'conv-1', 'c'),
    ]);
    const all = await store.listEventsAfter(0, 100);
    expect(all.map((e) => e.event_type)).toEqual(['a', 'b', 'c']);
    const after = await store.listEventsAfter(all[0]!.seq, 100, { conversationId: 'conv-1' });
    expect(after.map((e) => e.event_type)).toEqual(['c']);
    expect((await store.listEventsAfter(0, 100, { runId: two.id })).map((e) => e.event_type)).toEqual(['b']);
    expect(await store.listEventsAfter(0, 2)).toHaveLength(2);
  });

  it('tells a listener when another connection commits', async () => {
    const watcher = home.openStore();
    const writer = home.openStore();
    const { one } = await seed(writer);
    let calls = 0;
    const stop = watcher.onChange(() => calls++);
    await writer.appendEvents([event(one.id, 'conv-1', 'x')]);
    await waitFor(() => calls > 0, { what: 'a change notification' });
    stop();
  });
});

describe('opening', () => {
  it('lets several connections open one database, all seeing the same rows', async () => {
    const stores = Array.from({ length: 4 }, () => home.openStore());
    await Promise.all(stores.map((s) => s.ping()));
    const run = await stores[3]!.createRun(newRun());
    expect((await stores[0]!.getRun(run.id))?.id).toBe(run.id);
  });
});
