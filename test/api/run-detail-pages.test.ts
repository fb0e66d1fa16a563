import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run } from '../../src/store/schemas/run.js';
import type { Store } from '../../src/store/store.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runEvent, seedRun } from './fixtures.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

interface Page {
  run: { id: string };
  events: { seq: number; run_id: string; step_name: string | null }[];
  nextAfterSeq: number | null;
}

async function page(runId: string, query = ''): Promise<Page> {
  const res = await t.app.inject({ url: `/api/workflows/runs/${runId}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

/** Appends `count` node events to `run`, interleaved with events of `other` (seqs have gaps). */
async function seedEvents(writer: Store, run: Run, other: Run, count: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let start = 0; start < count; start += 250) {
    const batch = Array.from({ length: Math.min(250, count - start) }, (_, i) => [
      runEvent(run, 'node_started', `n${start + i}`),
      runEvent(other, 'node_started', `x${start + i}`),
    ]).flat();
    const written = await writer.appendEvents(batch);
    seqs.push(...written.filter((e) => e.run_id === run.id).map((e) => e.seq));
  }
  return seqs;
}

describe('GET /api/workflows/runs/{runId} pages its events', () => {
  it('answers a short run whole, as before pages existed, with nextAfterSeq null', async () => {
    const run = await seedRun(t.store);
    await t.writer.appendEvents([runEvent(run, 'node_started', 'a'), runEvent(run, 'node_completed', 'a')]);
    const body = await page(run.id);
    expect(body.events.map((e) => e.step_name)).toEqual(['a', 'a']);
    expect(body.nextAfterSeq).toBeNull();
  });

  it('gives 500 events by default and a cursor that walks the whole log once, in order', async () => {
    const run = await seedRun(t.store);
    const seqs = await seedEvents(t.writer, run, await seedRun(t.store), 1234);

    const first = await page(run.id);
    expect(first.events).toHaveLength(500);
    expect(first.nextAfterSeq).toBe(seqs[499]);

    const seen: number[] = [];
    let cursor: number | null = 0;
    let requests = 0;
    while (cursor !== null) {
      const body = await page(run.id, `?afterSeq=${cursor}`);
      expect(body.run.id).toBe(run.id);
      expect(body.events.every((e) => e.run_id === run.id)).toBe(true);
      seen.push(...body.events.map((e) => e.seq));
      cursor = body.nextAfterSeq;
      requests += 1;
    }
    expect(seen).toEqual(seqs);
    expect(requests).toBe(3);
  });

  it('honours limit up to 2000, and reads 2000 for anything larger', async () => {
    const run = await seedRun(t.store);
    const seqs = await seedEvents(t.writer, run, await seedRun(t.store), 2100);
    const three = await page(run.id, `?afterSeq=${seqs[9]}&limit=3`);
    expect(three.events.map((e) => e.seq)).toEqual(seqs.slice(10, 13));
    expect(three.nextAfterSeq).toBe(seqs[12]);
    const big = await page(run.id, '?limit=1000000');
    expect(big.events).toHaveLength(2000);
    expect(big.nextAfterSeq).toBe(seqs[1999]);
    const rest = await page(run.id, `?afterSeq=${big.nextAfterSeq}&limit=2000`);
    expect(rest.events.map((e) => e.seq)).toEqual(seqs.slice(2000));
    expect(rest.nextAfterSeq).toBeNull();
  });

  it('says more follow only while events remain, also when the last page is exactly full', async () => {
    const run = await seedRun(t.store);
    const seqs = await seedEvents(t.writer, run, await seedRun(t.store), 4);
    const full = await page(run.id, '?limit=2');
    expect(full.nextAfterSeq).toBe(seqs[1]);
    const last = await page(run.id, `?afterSeq=${full.nextAfterSeq}&limit=2`);
    expect(last.events.map((e) => e.seq)).toEqual(seqs.slice(2));
    expect(last.nextAfterSeq).toBeNull();
    const beyond = await page(run.id, `?afterSeq=${seqs[3]! + 100}`);
    expect(beyond).toMatchObject({ events: [], nextAfterSeq: null });
  });

  it.each([
    ['?afterSeq=abc', 'afterSeq must be a non-negative integer'],
    ['?afterSeq=-1', 'afterSeq must be a non-negative integer'],
    ['?afterSeq=1.5', 'afterSeq must be a non-negative integer'],
    ['?limit=0', 'limit must be a whole number of events, at least 1'],
    ['?limit=ten', 'limit must be a whole number of events, at least 1'],
  ])('refuses %s with a 400 that names the parameter', async (query, text) => {
    const run = await seedRun(t.store);
    const res = await t.app.inject({ url: `/api/workflows/runs/${run.id}${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.json().error).toContain(text);
  });
});

describe('GET /api/workflows/runs/{runId}/logs pages its attempts', () => {
  it('reads at most 50 attempts for a larger limit, and refuses a bad limit with the text of its own maximum', async () => {
    const run = await seedRun(t.store);
    await t.writer.appendEvents(Array.from({ length: 60 }, (_, i) => runEvent(run, 'node_completed', `n${i}`, { node_output: `out ${i}` })));
    const big = await t.app.inject({ url: `/api/workflows/runs/${run.id}/logs?limit=1000` });
    expect(big.statusCode, big.body).toBe(200);
    expect(big.json().attempts).toHaveLength(50);
    for (const query of ['?limit=0', '?limit=ten', '?limit=1.5']) {
      const res = await t.app.inject({ url: `/api/workflows/runs/${run.id}/logs${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toEqual({ error: 'limit must be a whole number of attempts, at least 1 (above 50 reads 50)', code: 'VALIDATION_FAILED' });
    }
  });
});
