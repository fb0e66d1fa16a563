import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

/**
 * The dashboard's `search` through the trigram index (migration 9): the same runs as the LIKE it
 * replaces (case-insensitive for A-Z, `%` and `_` literal), for searches of every length, kept
 * in step with inserts, status changes and deletes, and backfilled for runs written before it.
 */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const texts: [string, string][] = [
  ['build', 'Please build ticket #100 for the payments team'],
  ['Deploy-Preview', 'ship it: 100% of "quoted" users_now'],
  ['release', 'Über release für München, ÜBER alles'],
  ['triage', 'back\\slash and tab\there'],
  ['docs', 'PAYMENTS docs, all caps'],
  ['nightly', ''],
  ['refactor', 'a_b a%b a"b ü'],
];

/** What SQLite's LIKE answered: a substring, A-Z case-insensitive, every other character exact. */
function likeMatches(search: string): number {
  const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return texts.filter(([name, message]) => fold(name).includes(fold(search)) || fold(message).includes(fold(search))).length;
}

async function search(term: string): Promise<{ total: number; ids: string[]; counts: Record<string, number> }> {
  const res = await t.app.inject({ url: `/api/dashboard/runs?search=${encodeURIComponent(term)}&limit=200` });
  expect(res.statusCode, term).toBe(200);
  const body = res.json() as { total: number; runs: { id: string }[]; counts: Record<string, number> };
  return { total: body.total, ids: body.runs.map((r) => r.id), counts: body.counts };
}

describe('GET /api/dashboard/runs?search=', () => {
  it('finds what the LIKE found, for short (LIKE) and long (trigram) searches alike', async () => {
    for (const [workflowName, userMessage] of texts) await t.writer.createRun(newRun({ workflowName, userMessage }));
    const terms = [
      'b', 'B', 'ü', 'Ü', '%', '_', '"', '\\', 'pa', 'PA', '#1',
      'pay', 'PAYMENTS', 'payments team', 'deploy-preview', 'DEPLOY', '100%', '100% of', '"quoted"', 'users_now', 'a_b', 'a%b',
      'a"b', 'über', 'ÜBER', 'Über', 'münchen', 'MÜNCHEN', 'back\\slash', 'tab\there', 'ticket #100', 'nothing at all',
      'Please build ticket #100 for the payments team', 'Please build ticket #100 for the payments team!',
    ];
    for (const term of terms) {
      const { total, ids } = await search(term);
      expect(total, term).toBe(likeMatches(term));
      expect(ids.length, term).toBe(total);
    }
  });

  it('keeps the index in step: a new run, a status change (counts) and a delete', async () => {
    const run = await t.writer.createRun(newRun({ workflowName: 'alpha', userMessage: 'rotate the signing keys' }));
    await t.writer.createRun(newRun({ workflowName: 'beta', userMessage: 'unrelated' }));
    expect((await search('SIGNING')).ids).toEqual([run.id]);
    expect((await search('signing')).counts).toMatchObject({ all: 1, pending: 1, running: 0 });
    await t.writer.acquireRun({ runId: run.id, ownerId: 'sup-1', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    expect((await search('signing')).counts).toMatchObject({ all: 1, pending: 0, running: 1 });
    const running = await t.app.inject({ url: '/api/dashboard/runs?search=signing&status=running' });
    expect(running.json().total).toBe(1);
    await t.writer.transitionRun({ runId: run.id, ownerId: 'sup-1', status: 'completed', release: true, events: [] });
    expect(await t.writer.deleteRun(run.id, ['completed'])).toBe(true);
    expect((await search('signing')).total).toBe(0);
    expect((await search('unrelated')).total).toBe(1);
  });

  it('combines a search with the other filters', async () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const early = home.openStore({ clock: () => now });
    const late = home.openStore({ clock: () => now + 86_400_000 });
    await early.createRun(newRun({ workflowName: 'deploy', userMessage: 'first deploy' }));
    const second = await late.createRun(newRun({ workflowName: 'deploy', userMessage: 'second deploy' }));
    const res = await t.app.inject({ url: '/api/dashboard/runs?search=DEPLOY&after=2026-03-01T12:00:00Z' });
    expect(res.json()).toMatchObject({ total: 1, runs: [{ id: second.id }] });
  });
});

describe('short searches and node counts', () => {
  it('pages a short search with other filters, and answers an offset past its matches with no runs', async () => {
    for (const [workflowName, userMessage] of texts) await t.writer.createRun(newRun({ workflowName, userMessage }));
    await t.writer.createRun(newRun({ workflowName: 'build', userMessage: 'pa in a codebase', codebaseId: null }));
    const all = await search('pa');
    expect(all.total).toBe(likeMatches('pa') + 1);
    const past = (await t.app.inject({ url: `/api/dashboard/runs?search=pa&offset=${all.total}` })).json();
    expect(past).toMatchObject({ runs: [], total: all.total, counts: { all: all.total } });
    const second = (await t.app.inject({ url: '/api/dashboard/runs?search=pa&limit=1&offset=1' })).json();
    expect(second.runs.map((r: { id: string }) => r.id)).toEqual([all.ids[1]]);
    const pending = (await t.app.inject({ url: '/api/dashboard/runs?search=pa&status=pending' })).json();
    expect(pending.total).toBe(all.total);
    const failed = (await t.app.inject({ url: '/api/dashboard/runs?search=pa&status=failed' })).json();
    expect(failed).toMatchObject({ runs: [], total: 0 });
  });

  it('reads a frequent word in date order through every plan: the same pages as LIKE', async () => {
    // 3,300 runs, 2,200 with "payments": past the count at which a search stops sorting its matches.
    const db = new Database(home.paths.database);
    const insert = db.prepare(`INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, codebase_id, user_message, definition, created_at, last_activity_at)
      VALUES (?, 'w', ?, 'c1', ?, ?, '{}', ?, ?)`);
    const expected: { id: string; status: string; codebase: string | null }[] = [];
    db.transaction(() => {
      for (let i = 0; i < 3300; i++) {
        const at = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString();
        const row = { id: `run-${String(i).padStart(4, '0')}`, status: i % 4 === 0 ? 'failed' : 'completed', codebase: i % 5 === 0 ? 'acme/one' : null };
        const matches = i % 3 !== 0;
        insert.run(row.id, row.status, row.codebase, matches ? `fix the PAYMENTS flow ${i}` : `search ${i}`, at, at);
        if (matches) expected.unshift(row);
      }
    })();
    db.close();
    const page = async (q: string) => (await t.app.inject({ url: `/api/dashboard/runs?search=payments&${q}` })).json() as { total: number; runs: { id: string }[] };
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
    expect(await page('limit=50')).toMatchObject({ total: 2200 });
    expect(ids((await page('limit=50')).runs)).toEqual(ids(expected.slice(0, 50)));
    expect(ids((await page('limit=50&offset=2150')).runs)).toEqual(ids(expected.slice(2150, 2200)));
    const failed = expected.filter((r) => r.status === 'failed');
    expect(ids((await page('status=failed&limit=20&offset=100')).runs)).toEqual(ids(failed.slice(100, 120)));
    const inCodebase = expected.filter((r) => r.codebase === 'acme/one');
    const byCodebase = await page('codebaseId=acme/one&limit=200');
    expect(byCodebase.total).toBe(inCodebase.length);
    expect(ids(byCodebase.runs)).toEqual(ids(inCodebase.slice(0, 200)));
  });

  it("shows each run's node count, kept when a resume stores a new definition", async () => {
    const nodes = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `n${i}`, bash: 'true' }));
    const run = await t.writer.createRun(newRun({ definition: { name: 'demo', description: 'd', nodes: nodes(3) } }));
    const steps = async () => (await t.app.inject({ url: '/api/dashboard/runs' })).json().runs[0].total_steps;
    expect(await steps()).toBe(3);
    await t.writer.acquireRun({
      runId: run.id, ownerId: 'sup-1', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [],
      definition: { name: 'demo', description: 'd', nodes: nodes(5) },
    });
    expect(await steps()).toBe(5);
  });
});

describe('migration 10', () => {
  it('counts the nodes of the runs written before it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-migrate-'));
    const path = join(dir, 'cairn.sqlite');
    const old = new Database(path);
    const before = migrations.filter((m) => m.version < 10);
    for (const m of before) old.exec(m.sql);
    old.pragma(`user_version = ${Math.max(...before.map((m) => m.version))}`);
    const now = '2026-01-01T00:00:00.000Z';
    const insert = old.prepare(`INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, user_message, definition, created_at, last_activity_at)
      VALUES (?, 'w', 'completed', 'c1', '', ?, ?, ?)`);
    insert.run('two', JSON.stringify({ nodes: [{ id: 'a' }, { id: 'b' }] }), now, now);
    insert.run('none', '{}', now, now);
    old.close();
    const db = openConnection(path);
    expect(db.prepare('SELECT id, node_count FROM workflow_runs ORDER BY id').all()).toEqual([
      { id: 'none', node_count: 0 },
      { id: 'two', node_count: 2 },
    ]);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('migration 9', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('indexes the runs written before it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-migrate-'));
    dirs.push(dir);
    const path = join(dir, 'cairn.sqlite');
    const old = new Database(path);
    for (const m of migrations.filter((m) => m.version < 9)) old.exec(m.sql);
    old.pragma(`user_version = ${Math.max(...migrations.filter((m) => m.version < 9).map((m) => m.version))}`);
    const now = '2026-01-01T00:00:00.000Z';
    const insert = old.prepare(`INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, user_message, definition, created_at, last_activity_at)
      VALUES (?, ?, 'completed', 'c1', ?, '{}', ?, ?)`);
    insert.run('r1', 'nightly-build', 'Refresh the caches', now, now);
    insert.run('r2', 'docs', 'nothing here', now, now);
    old.close();

    const db = openConnection(path);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(9);
    const hits = (phrase: string) =>
      db.prepare(`SELECT r.id FROM workflow_runs r WHERE r.rowid IN
        (SELECT rowid FROM workflow_runs_search WHERE workflow_runs_search MATCH ?) ORDER BY r.id`).all(phrase);
    expect(hits('"CACHES"')).toEqual([{ id: 'r1' }]);
    expect(hits('"ly-bu"')).toEqual([{ id: 'r1' }]);
    expect(db.prepare(`SELECT status, COUNT(*) AS n FROM workflow_runs_search WHERE workflow_runs_search MATCH '"here"' GROUP BY status`).all())
      .toEqual([{ status: 'completed', n: 1 }]);
    db.close();
  });
});
