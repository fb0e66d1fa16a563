import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

/** The run list's cursor pages and the dashboard's filtered pages with totals and counts. */

let home: TempHome;
let t: TestApp;
let now: number;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  now = Date.parse('2026-03-01T00:00:00Z');
});
afterEach(async () => {
  await home.close();
});

/** A store whose clock the test moves, so created_at is known. */
function writerAt(): ReturnType<TempHome['openStore']> {
  return home.openStore({ clock: () => now });
}

const get = async (url: string) => {
  const res = await t.app.inject({ url });
  return { status: res.statusCode, body: res.json() };
};

describe('GET /api/workflows/runs pages', () => {
  it('pages with nextCursor, newest first, and later pages do not shift while runs are added', async () => {
    const store = writerAt();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      now += i % 2 === 0 ? 1000 : 0; // pairs share a millisecond: the row order breaks the tie
      ids.push((await store.createRun(newRun({ conversationId: 'conv-a' }))).id);
    }
    const newestFirst = [...ids].reverse();
    const first = await get('/api/workflows/runs?limit=3');
    expect(first.body.runs.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(0, 3));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    now += 5000;
    await store.createRun(newRun({ conversationId: 'conv-a' }));
    const second = await get(`/api/workflows/runs?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body.runs.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(3, 6));
    const third = await get(`/api/workflows/runs?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body.runs.map((r: { id: string }) => r.id)).toEqual(newestFirst.slice(6));
    expect(third.body.nextCursor).toBeNull();
  });

  it('filters by codebaseId and conversationId, and refuses a cursor it did not give', async () => {
    const store = writerAt();
    const on = await store.createRun(newRun({ codebaseId: 'acme/widgets', conversationId: 'conv-x' }));
    await store.createRun(newRun({ conversationId: 'conv-x' }));
    expect((await get('/api/workflows/runs?codebaseId=acme/widgets')).body.runs.map((r: { id: string }) => r.id)).toEqual([on.id]);
    expect((await get('/api/workflows/runs?conversationId=conv-x')).body.runs).toHaveLength(2);
    for (const bad of ['nope', Buffer.from('[1,2]').toString('base64url'), 'x'.repeat(300)]) {
      const res = await get(`/api/workflows/runs?cursor=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toContain('cursor must be the nextCursor of a previous answer');
    }
  });

  it('refuses a query parameter the route does not read, naming it and the accepted ones', async () => {
    const res = await get('/api/workflows/runs?stauts=failed');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', error: expect.stringContaining("Unknown query parameter 'stauts'") });
    expect(res.body.error).toContain('accepts status, conversationId');
    const none = await get('/health?x=1');
    expect(none.status).toBe(400);
    expect(none.body.error).toContain('/health takes no query parameters');
  });
});

describe('GET /api/dashboard/runs', () => {
  async function seed() {
    const store = writerAt();
    const made = [];
    for (const [i, status] of (['completed', 'failed', 'running', 'completed', 'pending'] as const).entries()) {
      now = Date.parse(`2026-03-0${i + 1}T12:00:00Z`);
      const run = await store.createRun(newRun({ workflowName: i === 1 ? 'Deploy_100%' : 'build', userMessage: `msg ${i}`, codebaseId: i < 2 ? 'acme/widgets' : null }));
      if (status !== 'pending') {
        await store.acquireRun({ runId: run.id, ownerId: 's', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [
          { run_id: run.id, conversation_id: run.conversation_id, event_type: 'node_started', step_name: 'a', data: {} },
        ] });
        if (status !== 'running') {
          await store.transitionRun({ runId: run.id, ownerId: 's', status, release: true, events: [
            { run_id: run.id, conversation_id: run.conversation_id, event_type: status === 'completed' ? 'node_completed' : 'node_failed', step_name: 'a', data: {} },
          ] });
        }
      }
      made.push(run);
    }
    return made;
  }

  it('answers runs, total and counts per status; limit is clamped to 200 (§12 row 30)', async () => {
    await seed();
    const res = await get('/api/dashboard/runs?limit=9999');
    expect(res.status).toBe(200);
    expect(res.body.runs.length).toBeLessThanOrEqual(200);
    expect(res.body.total).toBe(5);
    expect(res.body.counts).toEqual({ all: 5, pending: 1, running: 1, paused: 0, completed: 2, failed: 1, cancelled: 0 });
  });

  it('filters by status (counts ignore it), search, codebase and dates, and pages with limit and offset', async () => {
    const runs = await seed();
    const failed = await get('/api/dashboard/runs?status=failed');
    expect(failed.body.total).toBe(1);
    expect(failed.body.counts.all).toBe(5);
    expect(failed.body.runs[0]).toMatchObject({
      id: runs[1]!.id, codebase_name: null, platform_type: null, worker_platform_id: runs[1]!.conversation_id,
      current_step_name: 'a', current_step_status: 'failed', total_steps: 1, agents_completed: 0, agents_failed: 1, agents_total: 1,
    });
    // % in a search is a character, not a wildcard.
    expect((await get('/api/dashboard/runs?search=100%25')).body.total).toBe(1);
    expect((await get('/api/dashboard/runs?search=MSG')).body.total).toBe(5);
    expect((await get('/api/dashboard/runs?codebaseId=acme/widgets')).body.total).toBe(2);
    const range = await get('/api/dashboard/runs?after=2026-03-02&before=2026-03-04');
    expect(range.body.runs.map((r: { id: string }) => r.id)).toEqual([runs[2]!.id, runs[1]!.id]);
    const page = await get('/api/dashboard/runs?limit=2&offset=2');
    expect(page.body.runs.map((r: { id: string }) => r.id)).toEqual([runs[2]!.id, runs[1]!.id]);
    expect(page.body.total).toBe(5);
    expect((await get('/api/dashboard/runs?status=bogus')).body.total).toBe(5);
  });

  it('answers 400 naming the field for a date or offset it cannot use', async () => {
    for (const [query, field] of [['after=yesterday', 'after'], ['before=2026-13-45', 'before'], ['offset=-1', 'offset'], ['offset=x', 'offset']]) {
      const res = await get(`/api/dashboard/runs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toContain(field);
    }
  });

  // Date.parse alone reads 2026-02-30 as 2026-03-02: a day that does not exist is not a date.
  it.each(['after', 'before'])('answers 400 naming %s for a day that does not exist (2026-02-30)', async (field) => {
    const res = await get(`/api/dashboard/runs?${field}=2026-02-30`);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
    expect((await get(`/api/dashboard/runs?${field}=2024-02-29T23:00:00-05:00`)).status).toBe(200);
  });
});

describe('dashboard counts kept by the database', () => {
  it('follow inserts, status changes and deletes', async () => {
    const store = writerAt();
    const a = await store.createRun(newRun());
    await store.createRun(newRun());
    await store.acquireRun({ runId: a.id, ownerId: 's', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    await store.transitionRun({ runId: a.id, ownerId: 's', status: 'completed', release: true, events: [] });
    expect((await get('/api/dashboard/runs')).body.counts).toMatchObject({ all: 2, pending: 1, running: 0, completed: 1 });
    await store.deleteRun(a.id, ['completed']);
    expect((await get('/api/dashboard/runs')).body.counts).toMatchObject({ all: 1, pending: 1, completed: 0 });
    expect((await get('/api/dashboard/runs?status=completed')).body.total).toBe(0);
  });
});
