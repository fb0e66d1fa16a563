import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { makeTempHome } from '../test/helpers/temp-home.js';
import { startServer } from '../test/helpers/server.js';
import { runCursorTextSchema } from '../src/wire/run-cursor.js';
import { percentile } from './session.js';

/**
 * `npm run bench -- dashboard`: 100,000 runs in the database, then each kind of run-list and
 * dashboard page asked 50 times, timed in the store (the query alone) and over HTTP of the real
 * API process (routing, serialization, the socket). The target: any page ≤ 20 ms.
 */

const RUNS = 100_000;
const SAMPLES = 50;
const statuses = ['completed', 'completed', 'completed', 'failed', 'cancelled', 'running', 'pending', 'paused'];
const workflows = ['build', 'review', 'release', 'triage', 'docs', 'deploy-preview', 'nightly', 'refactor'];

/** Bulk rows written straight into the file, as years of use would leave them (one transaction). */
export function fill(path: string): { someCodebase: string; someConversation: string; midTime: string } {
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, codebase_id, working_path, user_message,
       inputs, metadata, definition, node_count, created_at, started_at, last_activity_at)
     VALUES (?, ?, ?, ?, ?, NULL, ?, '{}', ?, ?, 2, ?, ?, ?)`,
  );
  const definition = JSON.stringify({ name: 'build', description: 'd', nodes: [{ id: 'a', bash: 'true' }, { id: 'b', bash: 'true', depends_on: ['a'] }] });
  const start = Date.parse('2024-01-01T00:00:00Z');
  db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const at = new Date(start + i * 60_000).toISOString();
      insert.run(
        randomUUID(), workflows[i % workflows.length], statuses[i % statuses.length], `web-conv-${i % 2000}`,
        i % 3 === 0 ? `acme/repo-${i % 50}` : null, `Please ${workflows[i % 8]} ticket #${i} for the ${i % 7 === 0 ? 'payments' : 'search'} team`,
        JSON.stringify({ workflow_source: 'global', workflow_filename: 'build.yaml' }), definition, at, at, at,
      );
    }
  })();
  db.close();
  return { someCodebase: 'acme/repo-9', someConversation: 'web-conv-1234', midTime: new Date(start + (RUNS / 2) * 60_000).toISOString() };
}

export interface DashboardRow {
  page: string;
  storeP50: number;
  storeP99: number;
  httpP50: number;
  httpP99: number;
}

export async function dashboardPages(): Promise<DashboardRow[]> {
  const home = await makeTempHome();
  try {
    const store = home.openStore(); // creates and migrates the file
    const seed = fill(home.paths.database);
    const server = await startServer(home);
    const firstPage = (await (await fetch(`${server.url}/api/workflows/runs?limit=50`)).json()) as { nextCursor: string };
    const deepCursor = await (async () => {
      let cursor = firstPage.nextCursor;
      for (let i = 0; i < 10; i++) cursor = ((await (await fetch(`${server.url}/api/workflows/runs?limit=200&cursor=${cursor}`)).json()) as { nextCursor: string }).nextCursor;
      return cursor;
    })();
    const cursor = runCursorTextSchema.parse(deepCursor);
    const pages: [string, string, () => Promise<unknown>][] = [
      ['run list, first page', '/api/workflows/runs?limit=50', () => store.listRunPage({ limit: 50 })],
      ['run list, cursor page (after 2,050 runs)', `/api/workflows/runs?limit=50&cursor=${deepCursor}`, () => store.listRunPage({ limit: 50, cursor })],
      ['run list, status=failed', '/api/workflows/runs?status=failed&limit=50', () => store.listRunPage({ status: 'failed', limit: 50 })],
      ['run list, conversationId', `/api/workflows/runs?conversationId=${seed.someConversation}`, () => store.listRunPage({ conversationId: seed.someConversation, limit: 50 })],
      ['run list, codebaseId', `/api/workflows/runs?codebaseId=${seed.someCodebase}`, () => store.listRunPage({ codebaseId: seed.someCodebase, limit: 50 })],
      ['dashboard, default', '/api/dashboard/runs', () => store.listDashboardRuns({ limit: 50, offset: 0 })],
      ['dashboard, limit=200', '/api/dashboard/runs?limit=200', () => store.listDashboardRuns({ limit: 200, offset: 0 })],
      ['dashboard, status=failed', '/api/dashboard/runs?status=failed', () => store.listDashboardRuns({ status: 'failed', limit: 50, offset: 0 })],
      ['dashboard, codebaseId', `/api/dashboard/runs?codebaseId=${seed.someCodebase}`, () => store.listDashboardRuns({ codebaseId: seed.someCodebase, limit: 50, offset: 0 })],
      ['dashboard, after/before (one week)', `/api/dashboard/runs?after=${seed.midTime}&before=${new Date(Date.parse(seed.midTime) + 7 * 86_400_000).toISOString()}`,
        () => store.listDashboardRuns({ after: seed.midTime, before: new Date(Date.parse(seed.midTime) + 7 * 86_400_000).toISOString(), limit: 50, offset: 0 })],
      ['dashboard, offset=99,950', '/api/dashboard/runs?offset=99950', () => store.listDashboardRuns({ limit: 50, offset: 99_950 })],
      // search: 3+ characters go through the trigram index (migration 9), shorter ones are a LIKE scan.
      ['dashboard, search=payments (1 run in 7)', '/api/dashboard/runs?search=payments', () => store.listDashboardRuns({ search: 'payments', limit: 50, offset: 0 })],
      ['dashboard, search=PAYMENTS&status=failed', '/api/dashboard/runs?search=PAYMENTS&status=failed', () => store.listDashboardRuns({ search: 'PAYMENTS', status: 'failed', limit: 50, offset: 0 })],
      ['dashboard, search=ticket #4242 (11 runs)', `/api/dashboard/runs?search=${encodeURIComponent('ticket #4242')}`, () => store.listDashboardRuns({ search: 'ticket #4242', limit: 50, offset: 0 })],
      ['dashboard, search with no match', '/api/dashboard/runs?search=no-such-text', () => store.listDashboardRuns({ search: 'no-such-text', limit: 50, offset: 0 })],
      ['dashboard, search=pa (2 characters: LIKE scan)', '/api/dashboard/runs?search=pa', () => store.listDashboardRuns({ search: 'pa', limit: 50, offset: 0 })],
    ];
    const rows: DashboardRow[] = [];
    for (const [page, url, query] of pages) {
      const storeMs: number[] = [];
      const httpMs: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        let t0 = performance.now();
        await query();
        storeMs.push(performance.now() - t0);
        t0 = performance.now();
        const res = await fetch(`${server.url}${url}`);
        await res.arrayBuffer();
        httpMs.push(performance.now() - t0);
        if (!res.ok) throw new Error(`${url}: ${res.status}`);
      }
      rows.push({ page, storeP50: percentile(storeMs, 50), storeP99: percentile(storeMs, 99), httpP50: percentile(httpMs, 50), httpP99: percentile(httpMs, 99) });
    }
    return rows;
  } finally {
    await home.close();
  }
}

export function formatDashboardTable(rows: readonly DashboardRow[]): string {
  const f = (n: number) => n.toFixed(2);
  const searches = rows.filter((r) => r.page.includes('search'));
  return [
    `Dashboard search over ${RUNS.toLocaleString('en')} runs (target ≤ 20 ms): ` +
      searches.map((r) => `${r.page.replace('dashboard, ', '')} ${f(r.storeP50)} ms store / ${f(r.httpP50)} ms HTTP (p50)`).join('; '),
    '',
    `## Run list and dashboard pages over ${RUNS.toLocaleString('en')} runs (${SAMPLES} samples each)\n`,
    '| page | store p50 / p99 ms | HTTP p50 / p99 ms |',
    '|---|---:|---:|',
    ...rows.map((r) => `| ${r.page} | ${f(r.storeP50)} / ${f(r.storeP99)} | ${f(r.httpP50)} / ${f(r.httpP99)} |`),
    '',
  ].join('\n');
}
