import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/log.js';
import type { Run } from '../../../src/store/schemas/run.js';
import type { Store } from '../../../src/store/store.js';
import { GLOBAL_KEY, globalSlots, QUEUE_POSITIONS_SHOWN } from '../../../src/supervisor/run/engine-slots.js';
import { GlobalLine } from '../../../src/supervisor/run/global-line.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { newEvent, newRun } from '../../store/fixtures.js';

/**
 * The global limit's line (`concurrency.max`) as a run's nodes wait in it: each waiting node's
 * place, recorded as `global_queued` events in a real store, when it joins the line and as it
 * moves within the first QUEUE_POSITIONS_SHOWN places, so a long line costs a bounded number of
 * events per node, never one per node for every slot released.
 */

let home: TempHome;
let store: Store;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
});
afterEach(async () => {
  await home.close();
});

/** A node's work held until the test lets it end. */
function held(): { fn: () => Promise<string>; end: () => void; started: () => boolean } {
  let end!: () => void;
  let started = false;
  const done = new Promise<string>((resolve) => (end = () => resolve('done')));
  return {
    fn: () => {
      started = true;
      return done;
    },
    end: () => end(),
    started: () => started,
  };
}

/** The positions each node of `run` recorded, by node path, once every record asked for is written. */
async function positionsOf(run: Run): Promise<Map<string, number[]>> {
  // Appends commit in call order: once this one is written, every earlier one is.
  await store.appendEvents([newEvent(run, 'test_marker')]);
  const positions = new Map<string, number[]>();
  for (const event of await store.listRunEvents(run.id)) {
    if (event.event_type !== 'global_queued') continue;
    expect(event.data).toMatchObject({ node_id: event.step_name, limit: 1 });
    positions.set(event.step_name!, [...(positions.get(event.step_name!) ?? []), event.data.position as number]);
  }
  return positions;
}

it('records where each waiting node stands, keeping only the first ten places current, however long the line', async () => {
  const run = await store.createRun(newRun());
  const limiter = globalSlots(1);
  const line = new GlobalLine({ run, store, log: silentLogger(), limiter });
  const count = 60;
  const nodes = Array.from({ length: count + 1 }, () => held());
  // The first takes the only slot and writes nothing; the 200 others wait at places 1 to 200.
  const ran = nodes.map((node, i) => line.run(`n${i}`, `n${i}`, node.fn));
  await waitFor(() => nodes[0]!.started(), { what: 'the first node to start' });
  expect(limiter.waiting(GLOBAL_KEY)).toBe(count);

  // Each end hands the slot to the head of the line; everyone behind it moves up one place.
  for (let i = 0; i <= count; i++) {
    nodes[i]!.end();
    expect(await ran[i]).toEqual({ dropped: false, value: 'done' });
  }

  const positions = await positionsOf(run);
  expect(positions.has('n0')).toBe(false);
  for (let i = 1; i <= count; i++) {
    // Where it joined, then each place from the tenth (or where it joined) up to the first.
    const movedThrough = Array.from({ length: Math.min(i - 1, QUEUE_POSITIONS_SHOWN) }, (_, k) => Math.min(i - 1, QUEUE_POSITIONS_SHOWN) - k);
    expect(positions.get(`n${i}`), `n${i}`).toEqual([i, ...movedThrough]);
  }
  // The bound: at most 1 + QUEUE_POSITIONS_SHOWN events per node (a record per release would be 1,830).
  const total = [...positions.values()].reduce((sum, p) => sum + p.length, 0);
  expect(total).toBeLessThanOrEqual(count * (1 + QUEUE_POSITIONS_SHOWN));
  expect(Math.max(...[...positions.values()].map((p) => p.length))).toBe(1 + QUEUE_POSITIONS_SHOWN);
});

it("moves those behind a node that left the line (its run cancelled) up, in every run's line, and the one that left runs nothing", async () => {
  const [first, second] = [await store.createRun(newRun()), await store.createRun(newRun())];
  const limiter = globalSlots(1);
  const lineOf = (run: Run) => new GlobalLine({ run, store, log: silentLogger(), limiter });
  const cancelled = new AbortController();
  const [holder, a, b, c] = [held(), held(), held(), held()];
  const holding = lineOf(first).run('holder', 'holder', holder.fn);
  const left = lineOf(first).run('a', 'a', a.fn, cancelled.signal);
  const ranB = lineOf(second).run('b', 'b', b.fn);
  const ranC = lineOf(second).run('c', 'c', c.fn);

  cancelled.abort();
  expect(await left).toEqual({ dropped: true });
  expect(a.started()).toBe(false);
  expect(limiter.waiting(GLOBAL_KEY)).toBe(2);
  holder.end();
  await holding;
  expect(b.started()).toBe(true);
  b.end();
  c.end();
  await Promise.all([ranB, ranC]);

  expect(Object.fromEntries(await positionsOf(first))).toEqual({ a: [1] });
  // B moved from 2 to 1 when A left; C from 3 to 2, then to 1 when B took the slot.
  expect(Object.fromEntries(await positionsOf(second))).toEqual({ b: [2, 1], c: [3, 2, 1] });
});
