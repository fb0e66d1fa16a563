import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { waitFor } from '../helpers/wait-for.js';
import { newEvent, newRun } from './fixtures.js';
import { usePostgresBackend } from './postgres-backend.js';
import { useHarness } from './contract/backend.js';
import { startAnswerCuttingProxy } from './answer-cutting-proxy.js';

const postgres = usePostgresBackend();

/**
 * The dashboard's stream reads events across runs after a cursor (listEventsAfter without a
 * filter). On PostgreSQL transactions commit out of order: a reader must never move its cursor
 * past an event whose transaction is still open, or it skips that event for good.
 */
describe('PostgreSQL event feed', () => {
  const h = useHarness(postgres);

  it('never skips an event whose transaction commits after later ones, while a reader polls the feed', async () => {
    const store = h().open();
    const [slowRun, busyRun] = await Promise.all([store.createRun(newRun()), store.createRun(newRun())]);

    // One writer opens a transaction and inserts its event first, then stays open.
    const slow = new pg.Client({ connectionString: (h().config as { url: string }).url });
    await slow.connect();
    h().defer(() => slow.end().catch(() => {}));
    await slow.query('BEGIN');
    await slow.query(
      `INSERT INTO events (run_id, conversation_id, event_type, step_name, data, created_at) VALUES ($1, $2, 'slow', NULL, '{}', $3)`,
      [slowRun.id, slowRun.conversation_id, new Date().toISOString()],
    );

    // The reader: the SSE tailer's loop over the global feed.
    const seen: { seq: number; type: string }[] = [];
    let cursor = 0;
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const rows = await store.listEventsAfter(cursor, 50);
        for (const row of rows) {
          seen.push({ seq: row.seq, type: row.event_type });
          cursor = Math.max(cursor, row.seq);
        }
        if (rows.length === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    // Others commit many events while the slow transaction is open, and the reader sees them.
    const writer = h().open();
    for (let i = 0; i < 40; i++) await writer.appendEvents([newEvent(busyRun, `busy-${i}`)]);
    await waitFor(() => seen.length >= 40, { what: 'the reader to see the committed events', timeoutMs: 10_000 });
    expect(seen.some((e) => e.type === 'slow')).toBe(false);

    // The slow writer commits last: its event still reaches the reader, after everything it read.
    await slow.query('COMMIT');
    await waitFor(() => seen.some((e) => e.type === 'slow'), { what: 'the slow event to reach the reader', timeoutMs: 10_000 });
    reading = false;
    await reader;

    const committed = await store.listEventsAfter(0, 1_000);
    expect(committed).toHaveLength(41);
    expect(seen.map((e) => e.seq)).toEqual(committed.map((e) => e.seq));
    expect(seen.at(-1)?.type).toBe('slow');
    // Each run's events are in its own commit order too.
    expect((await store.listRunEvents(busyRun.id)).map((e) => e.event_type)).toEqual(Array.from({ length: 40 }, (_, i) => `busy-${i}`));
  });

  it('records an append once when its commit went through but the answer was lost (a restart or a cut connection at that moment)', async () => {
    const proxy = await startAnswerCuttingProxy((h().config as { url: string }).url);
    h().defer(() => proxy.close());
    const store = openStore(postgresStoreConfig(proxy.url), { pollMs: 50 });
    h().defer(() => store.close());
    const run = await store.createRun(newRun());

    proxy.cutAnswerTo('COMMIT');
    const [written] = await store.appendEvents([newEvent(run, 'once')]);
    expect(proxy.cuts).toBe(1);
    const stored = (await store.listRunEvents(run.id)).filter((e) => e.event_type === 'once');
    expect(stored.map((e) => e.seq)).toEqual([written!.seq]);
  });
});

/** A claim is one statement, its own transaction: no COMMIT whose outcome can be asked after. */
describe('PostgreSQL claims whose answer was lost', () => {
  const h = useHarness(postgres);

  it('answers the job the lost claim leased, and leaves no other job claimed', async () => {
    const proxy = await startAnswerCuttingProxy((h().config as { url: string }).url);
    h().defer(() => proxy.close());
    const store = openStore(postgresStoreConfig(proxy.url), { pollMs: 50 });
    h().defer(() => store.close());
    const run = await store.createRun(newRun());
    await store.enqueueJob('workflow_result', run.id, { n: 1 });

    proxy.cutAnswerTo('cairn_claim_job');
    const job = await store.claimJob('sup-a', 60_000);
    expect(proxy.cuts).toBe(1);
    const jobs = await store.listRunJobs(run.id);
    // The run's start_run job, leased once, and the job queued after it, still open.
    expect(jobs.map((j) => [j.kind, j.status, j.lease_owner, j.attempts])).toEqual([
      ['start_run', 'claimed', 'sup-a', 1],
      ['workflow_result', 'queued', null, 0],
    ]);
    expect(job).toMatchObject({ id: jobs[0]!.id, status: 'claimed', attempts: 1 });
  });
});
