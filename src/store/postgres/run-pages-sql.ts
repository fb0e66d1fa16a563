import type { DashboardRunQuery, RunListQuery } from '../runs.js';
import { runStatusSchema, type Run } from '../schemas/run.js';
import type { DashboardCounts, DashboardRun, DashboardRunFacts, RunCursor } from '../schemas/run-page.js';
import { RUN_COLUMNS, toRun } from './rows.js';
import type { Query, Row } from './session.js';

/**
 * Pages of `workflow_runs`, newest first (created_at, then insertion order: row_seq), under
 * equality filters, a time window and a case-insensitive substring search of the workflow name
 * or the message (ILIKE). Lists select RUN_COLUMNS, never a run's definition.
 */

type PageQuery = Partial<RunListQuery & DashboardRunQuery>;

/** `%`, `_` and `\` in a search are literal characters, not LIKE patterns. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function runFilter(query: PageQuery, withStatus: boolean): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    if (value === undefined || value === '') return;
    params.push(value);
    where.push(sql.replaceAll('?', `$${params.length}`));
  };
  if (withStatus) add('status = ?', query.status);
  add('conversation_id = ?', query.conversationId);
  add('workflow_name = ?', query.workflowName);
  add('codebase_id = ?', query.codebaseId);
  add('created_at >= ?', query.after);
  add('created_at < ?', query.before);
  if (query.search !== undefined && query.search !== '') {
    add(`(workflow_name ILIKE ? ESCAPE '\\' OR user_message ILIKE ? ESCAPE '\\')`, likePattern(query.search.replaceAll('\0', '')));
  }
  return { where, params };
}

const whereClause = (where: string[]) => (where.length ? `WHERE ${where.join(' AND ')}` : '');
const columns = (alias: string) => RUN_COLUMNS.map((c) => `${alias}.${c}`).join(', ');

const nodeEventStatus: Record<string, DashboardRunFacts['current_step_status']> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'skipped',
};
const nodeEventTypes = Object.keys(nodeEventStatus).map((type) => `'${type}'`).join(', ');

export function runPageStatements(q: Query) {
  async function facts(row: Row, run: Run): Promise<DashboardRunFacts> {
    const [latest] = await q(
      `SELECT step_name, event_type FROM events
       WHERE run_id = $1 AND step_name IS NOT NULL AND event_type IN (${nodeEventTypes}) AND seq IS NOT NULL
       ORDER BY seq DESC LIMIT 1`,
      [run.id],
    );
    // Each node's latest terminal event.
    const [outcomes] = await q(
      `SELECT COUNT(*) FILTER (WHERE event_type IN ('node_completed', 'node_skipped_prior_success')) AS completed,
              COUNT(*) FILTER (WHERE event_type = 'node_failed') AS failed
       FROM (SELECT DISTINCT ON (step_name) event_type FROM events
             WHERE run_id = $1 AND step_name IS NOT NULL AND seq IS NOT NULL
               AND event_type IN ('node_completed', 'node_failed', 'node_skipped_prior_success')
             ORDER BY step_name, seq DESC) latest`,
      [run.id],
    );
    const total = Number(row.total_steps ?? 0);
    return {
      codebase_name: (row.codebase_name as string | null) ?? null,
      platform_type: (row.platform_type as string | null) ?? null,
      worker_platform_id: run.conversation_id,
      parent_platform_id: run.metadata.parent_conversation_id ?? null,
      current_step_name: (latest?.step_name as string | undefined) ?? null,
      current_step_status: latest ? (nodeEventStatus[latest.event_type as string] ?? null) : null,
      total_steps: total,
      agents_completed: Number(outcomes?.completed ?? 0),
      agents_failed: Number(outcomes?.failed ?? 0),
      agents_total: total,
    };
  }

  return {
    async page(query: RunListQuery & { cursor?: RunCursor }): Promise<{ runs: Run[]; nextCursor: RunCursor | null }> {
      const filter = runFilter(query, true);
      if (query.cursor) {
        filter.params.push(query.cursor.createdAt, query.cursor.rowid);
        const [at, seq] = [filter.params.length - 1, filter.params.length];
        filter.where.push(`(created_at < $${at} OR (created_at = $${at} AND row_seq < $${seq}))`);
      }
      filter.params.push(query.limit + 1);
      const rows = await q(
        `SELECT row_seq, ${columns('r')} FROM workflow_runs r ${whereClause(filter.where)}
         ORDER BY created_at DESC, row_seq DESC LIMIT $${filter.params.length}`,
        filter.params,
      );
      const more = rows.length > query.limit;
      const kept = rows.slice(0, query.limit);
      const last = kept.at(-1);
      return {
        runs: kept.map(toRun),
        nextCursor: more && last ? { createdAt: last.created_at as string, rowid: last.row_seq as number } : null,
      };
    },

    async dashboard(query: DashboardRunQuery): Promise<{ runs: DashboardRun[]; total: number; counts: DashboardCounts }> {
      const countFilter = runFilter(query, false);
      const byStatus = await q(`SELECT status, COUNT(*) AS n FROM workflow_runs ${whereClause(countFilter.where)} GROUP BY status`, countFilter.params);
      const counts = { all: 0, ...Object.fromEntries(runStatusSchema.options.map((s) => [s, 0])) } as DashboardCounts;
      for (const row of byStatus) {
        const n = Number(row.n);
        counts.all += n;
        if (Object.hasOwn(counts, row.status as string)) counts[row.status as keyof DashboardCounts] = n;
      }
      const total = query.status ? counts[query.status] : counts.all;
      if (total <= query.offset) return { runs: [], total, counts };
      const filter = runFilter(query, true);
      filter.params.push(query.limit, query.offset);
      const n = filter.params.length;
      const rows = await q(
        `WITH page AS (
           SELECT id, created_at, row_seq FROM workflow_runs ${whereClause(filter.where)}
           ORDER BY created_at DESC, row_seq DESC LIMIT $${n - 1} OFFSET $${n})
         SELECT ${columns('r')}, c.name AS codebase_name, conv.platform_type AS platform_type, r.node_count AS total_steps
         FROM page JOIN workflow_runs r ON r.id = page.id
         LEFT JOIN codebases c ON c.id = r.codebase_id
         LEFT JOIN conversations conv ON conv.platform_conversation_id = r.conversation_id
         ORDER BY page.created_at DESC, page.row_seq DESC`,
        filter.params,
      );
      const runs: DashboardRun[] = [];
      for (const row of rows) {
        const run = toRun(row);
        runs.push({ ...run, ...(await facts(row, run)) });
      }
      return { runs, total, counts };
    },
  };
}
