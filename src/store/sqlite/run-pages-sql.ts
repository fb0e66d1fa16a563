import type Database from 'better-sqlite3';
import type { DashboardRunQuery, RunListQuery } from '../runs.js';
import { runStatusSchema, type Run } from '../schemas/run.js';
import type { DashboardCounts, DashboardRun, DashboardRunFacts, RunCursor } from '../schemas/run-page.js';
import { RUN_COLUMNS, toRun } from '../rows.js';

/**
 * Pages of `workflow_runs`, newest first. Every filter is an equality with an index ending in
 * `created_at` (migration 9), so a page walks an index range in order and stops at its limit:
 * 100,000 runs cost a page no more than 100 do. `search` (a substring) reads the runs the trigram
 * index (migration 9) names; a search under 3 characters scans the texts in a covering index
 * (migration 10) instead of the rows. The dashboard's per-status counts come from
 * `workflow_run_counts` (kept by triggers) when only status filters, else from one GROUP BY over
 * the filtered runs. Lists select RUN_COLUMNS, never a run's definition.
 */

type Row = Record<string, unknown>;
interface Filter {
  where: string[];
  params: Record<string, unknown>;
}

/** `%`, `_` and `\` in a search are literal characters, not LIKE patterns. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The trigram index answers searches of at least this many characters; shorter ones are a LIKE scan. */
export const MIN_INDEXED_SEARCH = 3;

/** A search the trigram index answers: enough matches make a page walk the date index instead of sorting them. */
const SORT_MATCHES_AT_MOST = 2_000;

interface IndexedSearch {
  /** The search as one FTS5 phrase, every character literal (a `"` doubled). */
  phrase: string;
  /**
   * The index folds the case of every letter; LIKE only of A-Z. An ASCII search is answered by
   * the index alone (the same runs as LIKE); a search with other letters is checked again with
   * LIKE, so `Ü` still matches only `Ü`, as it always did.
   */
  recheck: boolean;
}

function indexedSearch(search: string | undefined): IndexedSearch | undefined {
  if (search === undefined || [...search].length < MIN_INDEXED_SEARCH || search.includes('\0')) return undefined;
  return { phrase: `"${search.replace(/"/g, '""')}"`, recheck: /[^\x00-\x7f]/.test(search) };
}

/**
 * How a search is answered:
 * - `match`: the runs the trigram index names, read by rowid and sorted (few matches);
 * - `match-walk`: the date index walked, each run checked against the index's set (many matches);
 * - `scan`: the date-ordered text index walked with LIKE on its entries, never a row. The only
 *   way for a search under 3 characters; for a frequent word it finds a page's runs in the first
 *   few hundred entries, with no trigram lookup at all.
 */
type SearchPlan = 'match' | 'match-walk' | 'scan';

/** A `scan` for an indexed search is chosen when it reads at most this many index entries. */
const SCAN_ENTRIES_AT_MOST = 40_000;

type PageQuery = Partial<RunListQuery & DashboardRunQuery>;

const hasEqualityFilter = (query: PageQuery) =>
  query.conversationId !== undefined || query.workflowName !== undefined || query.codebaseId !== undefined;

/**
 * The plan for `query`'s search. `matches` (runs matching every filter) and `runs` (all runs)
 * are known once counted; without them an indexed search is a `match`.
 */
function searchPlan(query: PageQuery, counted?: { matches: number; runs: number }): SearchPlan | undefined {
  if (query.search === undefined || query.search === '') return undefined;
  if (!indexedSearch(query.search)) return 'scan';
  if (!counted) return 'match';
  // The scan reads about (offset + limit) × runs / matches entries before its page is full.
  const entries = ((query.offset ?? 0) + (query.limit ?? 0)) * (counted.runs / Math.max(1, counted.matches));
  if (!hasEqualityFilter(query) && entries <= SCAN_ENTRIES_AT_MOST) return 'scan';
  return counted.matches <= SORT_MATCHES_AT_MOST ? 'match' : 'match-walk';
}

/** The table to read: a scan with no equality filter but status reads the text index alone. */
function runsTable(query: PageQuery, plan: SearchPlan | undefined): string {
  return plan === 'scan' && !hasEqualityFilter(query) ? 'workflow_runs INDEXED BY workflow_runs_text' : 'workflow_runs';
}

const columns = (alias?: string) => RUN_COLUMNS.map((c) => (alias ? `${alias}.${c}` : c)).join(', ');

const SEARCH_ROWIDS = 'SELECT rowid FROM workflow_runs_search WHERE workflow_runs_search MATCH @searchPhrase';

function runFilter(query: PageQuery, opts: { status: boolean; plan: SearchPlan | undefined }): Filter {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const add = (sql: string, name: string, value: unknown) => {
    if (value === undefined) return;
    where.push(sql);
    params[name] = value;
  };
  if (opts.status) add('status = @status', 'status', query.status);
  add('conversation_id = @conversationId', 'conversationId', query.conversationId);
  add('workflow_name = @workflowName', 'workflowName', query.workflowName);
  add('codebase_id = @codebaseId', 'codebaseId', query.codebaseId);
  add('created_at >= @after', 'after', query.after);
  add('created_at < @before', 'before', query.before);
  if (opts.plan !== undefined && query.search !== undefined) {
    const indexed = indexedSearch(query.search);
    if (indexed && opts.plan !== 'scan') {
      // `+rowid` keeps the planner on the date index (a walk that stops at the page's end).
      where.push(`${opts.plan === 'match-walk' ? '+rowid' : 'rowid'} IN (${SEARCH_ROWIDS})`);
      params.searchPhrase = indexed.phrase;
    }
    if (opts.plan === 'scan' || indexed?.recheck) {
      where.push("(workflow_name LIKE @search ESCAPE '\\' OR user_message LIKE @search ESCAPE '\\')");
      params.search = likePattern(query.search);
    }
  }
  return { where, params };
}

const whereClause = (filter: Filter) => (filter.where.length ? `WHERE ${filter.where.join(' AND ')}` : '');

const nodeEventStatus: Record<string, DashboardRunFacts['current_step_status']> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'skipped',
};
const nodeEventTypes = Object.keys(nodeEventStatus).map((type) => `'${type}'`).join(', ');

export function runPageStatements(db: Database.Database) {
  const prepared = new Map<string, Database.Statement>();
  // Statements differ only by which filters are present: a handful of shapes, each prepared once.
  const statement = (sql: string) => {
    let stmt = prepared.get(sql);
    if (!stmt) prepared.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
  const latestNodeEvent = db.prepare(
    `SELECT step_name, event_type FROM events
     WHERE run_id = ? AND step_name IS NOT NULL AND event_type IN (${nodeEventTypes})
     ORDER BY seq DESC LIMIT 1`,
  );
  // Each node's latest terminal event (SQLite takes the bare event_type from the MAX(seq) row).
  const nodeOutcomes = db.prepare(
    `SELECT SUM(event_type IN ('node_completed', 'node_skipped_prior_success')) AS completed,
            SUM(event_type = 'node_failed') AS failed
     FROM (SELECT event_type, MAX(seq) FROM events
           WHERE run_id = ? AND step_name IS NOT NULL
             AND event_type IN ('node_completed', 'node_failed', 'node_skipped_prior_success')
           GROUP BY step_name)`,
  );

  function facts(row: Row, run: Run): DashboardRunFacts {
    const latest = latestNodeEvent.get(run.id) as { step_name: string; event_type: string } | undefined;
    const outcomes = nodeOutcomes.get(run.id) as { completed: number | null; failed: number | null };
    const total = Number(row.total_steps ?? 0);
    return {
      codebase_name: (row.codebase_name as string | null) ?? null,
      platform_type: (row.platform_type as string | null) ?? null,
      worker_platform_id: run.conversation_id,
      parent_platform_id: run.metadata.parent_conversation_id ?? null,
      current_step_name: latest?.step_name ?? null,
      current_step_status: latest ? (nodeEventStatus[latest.event_type] ?? null) : null,
      total_steps: total,
      agents_completed: outcomes.completed ?? 0,
      agents_failed: outcomes.failed ?? 0,
      agents_total: total,
    };
  }

  return {
    /** One page after `cursor`, and the cursor of its last run when another page may follow. */
    page(query: RunListQuery & { cursor?: RunCursor }): { runs: Run[]; nextCursor: RunCursor | null } {
      const plan = searchPlan(query);
      const filter = runFilter(query, { status: true, plan });
      if (query.cursor) {
        // Spelled as a range on created_at, so the index serves it; rowid breaks ties in a millisecond.
        filter.where.push('created_at <= @cursorAt AND (created_at < @cursorAt OR rowid < @cursorRowid)');
        filter.params.cursorAt = query.cursor.createdAt;
        filter.params.cursorRowid = query.cursor.rowid;
      }
      const rows = statement(
        `SELECT rowid AS page_rowid, ${columns()} FROM ${runsTable(query, plan)} ${whereClause(filter)}
         ORDER BY created_at DESC, rowid DESC LIMIT @limit`,
      ).all({ ...filter.params, limit: query.limit + 1 }) as Row[];
      const more = rows.length > query.limit;
      const kept = rows.slice(0, query.limit);
      const last = kept.at(-1);
      return {
        runs: kept.map(toRun),
        nextCursor: more && last ? { createdAt: last.created_at as string, rowid: last.page_rowid as number } : null,
      };
    },

    dashboard(query: DashboardRunQuery): { runs: DashboardRun[]; total: number; counts: DashboardCounts } {
      // Counts first: for a search, how many runs match decides how the page is read.
      const countPlan = searchPlan(query);
      const countFilter = runFilter(query, { status: false, plan: countPlan });
      const indexed = indexedSearch(query.search);
      const searchOnly = indexed !== undefined && !indexed.recheck && countFilter.where.length === 1;
      // Without filters (the status one aside) the trigger-kept counts answer; a search alone is
      // counted in the search index (it keeps each run's status); otherwise count the subset.
      const byStatus = (
        countFilter.where.length === 0
          ? statement('SELECT status, n FROM workflow_run_counts').all()
          : searchOnly
            ? statement('SELECT status, COUNT(*) AS n FROM workflow_runs_search WHERE workflow_runs_search MATCH @searchPhrase GROUP BY status')
                .all({ searchPhrase: indexed.phrase })
            : statement(`SELECT status, COUNT(*) AS n FROM ${runsTable(query, countPlan)} ${whereClause(countFilter)} GROUP BY status`).all(countFilter.params)
      ) as { status: string; n: number }[];
      const counts = { all: 0, ...Object.fromEntries(runStatusSchema.options.map((s) => [s, 0])) } as DashboardCounts;
      for (const { status, n } of byStatus) {
        counts.all += n;
        if (Object.hasOwn(counts, status)) counts[status as keyof DashboardCounts] = n;
      }

      const total = query.status ? counts[query.status] : counts.all;
      // No run on the page (a search with no match, an offset past the end): nothing to read.
      if (total <= query.offset) return { runs: [], total, counts };
      const runs = countFilter.where.length === 0 ? counts.all : (statement('SELECT SUM(n) AS n FROM workflow_run_counts').get() as { n: number | null }).n ?? 0;
      const plan = searchPlan(query, { matches: total, runs });
      const filter = runFilter(query, { status: true, plan });
      // The page's row ids come from the index alone; only those rows are read and joined.
      // CROSS JOIN keeps that order: with the limit a parameter, the planner would otherwise
      // scan every run and probe the page (3 ms at 100,000 runs instead of 0.3).
      const rows = statement(
        `WITH page AS (
           SELECT rowid AS page_rowid FROM ${runsTable(query, plan)} ${whereClause(filter)}
           ORDER BY created_at DESC, rowid DESC LIMIT @limit OFFSET @offset)
         SELECT ${columns('r')}, c.name AS codebase_name, conv.platform_type AS platform_type,
                r.node_count AS total_steps
         FROM page CROSS JOIN workflow_runs r ON r.rowid = page.page_rowid
         LEFT JOIN codebases c ON c.id = r.codebase_id
         LEFT JOIN conversations conv ON conv.platform_conversation_id = r.conversation_id
         ORDER BY r.created_at DESC, r.rowid DESC`,
      ).all({ ...filter.params, limit: query.limit, offset: query.offset }) as Row[];
      return {
        runs: rows.map((row) => {
          const run = toRun(row);
          return { ...run, ...facts(row, run) };
        }),
        total,
        counts,
      };
    },
  };
}
