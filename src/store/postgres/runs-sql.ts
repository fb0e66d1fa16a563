import { runStatusSchema, terminalRunStatuses, type Run, type RunStatus } from '../schemas/run.js';
import type { NewRun, RunListQuery } from '../runs.js';
import type { AcquiredHold, RunHold, TransitionedHold } from '../rules/run-ownership.js';
import { nodeCountOf, RUN_COLUMNS, toRun } from './rows.js';
import type { Query, Row } from './session.js';

/** Every column toRun reads, never the definition (megabytes for a large workflow). */
const COLUMNS = RUN_COLUMNS.join(', ');
const terminal = `(${terminalRunStatuses.map((status) => `'${status}'`).join(', ')})`;
const open = `(${runStatusSchema.options.filter((s) => !terminalRunStatuses.includes(s)).map((s) => `'${s}'`).join(', ')})`;

const one = (rows: Row[]): Run | undefined => (rows[0] ? toRun(rows[0]) : undefined);

/** Statements for `workflow_runs`. Callers run multi-statement changes inside one write. */
export function runStatements(q: Query) {
  return {
    async insert(run: NewRun, now: string): Promise<Run> {
      const rows = await q(
        `INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, working_path, codebase_id,
           user_message, inputs, metadata, definition, node_count, user_id, created_at, last_activity_at,
           parent_run_id, parent_node_id, child_index)
         VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15)
         RETURNING ${COLUMNS}`,
        [
          run.id, run.workflowName, run.conversationId, run.workingPath, run.codebaseId ?? null, run.userMessage,
          JSON.stringify(run.inputs), JSON.stringify(run.metadata), JSON.stringify(run.definition), nodeCountOf(run.definition),
          run.userId ?? null, now, run.parent?.runId ?? null, run.parent?.nodeId ?? null, run.parent?.childIndex ?? null,
        ],
      );
      return toRun(rows[0]!);
    },
    async child(parentRunId: string, nodeId: string, childIndex: number): Promise<Run | undefined> {
      return one(await q(`SELECT ${COLUMNS} FROM workflow_runs WHERE parent_run_id = $1 AND parent_node_id = $2 AND child_index = $3`, [parentRunId, nodeId, childIndex]));
    },
    async children(parentRunId: string, nodeId: string): Promise<Run[]> {
      return (await q(`SELECT ${COLUMNS} FROM workflow_runs WHERE parent_run_id = $1 AND parent_node_id = $2 ORDER BY child_index`, [parentRunId, nodeId])).map(toRun);
    },
    async openDescendants(runId: string): Promise<Run[]> {
      const rows = await q(
        `WITH RECURSIVE tree(id, depth) AS (
           SELECT id, 1 FROM workflow_runs WHERE parent_run_id = $1
           UNION ALL
           SELECT r.id, tree.depth + 1 FROM workflow_runs r JOIN tree ON r.parent_run_id = tree.id WHERE tree.depth < 64
         )
         SELECT ${RUN_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM workflow_runs r JOIN tree ON tree.id = r.id
         WHERE r.status NOT IN ${terminal} ORDER BY tree.depth, r.created_at`,
        [runId],
      );
      return rows.map(toRun);
    },
    async get(id: string): Promise<Run | undefined> {
      return one(await q(`SELECT ${COLUMNS} FROM workflow_runs WHERE id = $1`, [id]));
    },
    async definition(id: string): Promise<unknown> {
      const [row] = await q('SELECT definition FROM workflow_runs WHERE id = $1', [id]);
      return row ? JSON.parse(row.definition as string) : undefined;
    },
    async list(query: RunListQuery): Promise<Run[]> {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (column: string, value: string | undefined) => {
        if (value === undefined || value === '') return;
        params.push(value);
        where.push(`${column} = $${params.length}`);
      };
      add('status', query.status);
      add('conversation_id', query.conversationId);
      add('workflow_name', query.workflowName);
      add('codebase_id', query.codebaseId);
      params.push(query.limit);
      return (
        await q(
          `SELECT ${COLUMNS} FROM workflow_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY created_at DESC, row_seq DESC LIMIT $${params.length}`,
          params,
        )
      ).map(toRun);
    },
    async openOf(conversationId: string): Promise<Run[]> {
      return (
        await q(
          `SELECT ${COLUMNS} FROM workflow_runs
           WHERE status IN ${open} AND (conversation_id = $1 OR metadata::jsonb ->> 'parent_conversation_id' = $1)
           ORDER BY created_at DESC, row_seq DESC`,
          [conversationId],
        )
      ).map(toRun);
    },
    async count(status: RunStatus): Promise<number> {
      const [row] = await q('SELECT COUNT(*) AS n FROM workflow_runs WHERE status = $1', [status]);
      return Number(row!.n);
    },
    /**
     * The part of the run the ownership rules read, under the run row's lock until the write
     * commits (no other writer changes the run between the rules' read and the write).
     */
    async hold(runId: string): Promise<RunHold | undefined> {
      const [row] = await q(
        'SELECT status, owner_id, lease_expires_at, cancel_requested_at FROM workflow_runs WHERE id = $1 FOR NO KEY UPDATE',
        [runId],
      );
      return row as RunHold | undefined;
    },
    /** The holds of the named runs, locked in id order (so two writers never wait on each other in a cycle). */
    async holds(runIds: readonly string[]): Promise<(RunHold & { id: string })[]> {
      return (await q(
        `SELECT id, status, owner_id, lease_expires_at, cancel_requested_at FROM workflow_runs
         WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
        [[...runIds]],
      )) as unknown as (RunHold & { id: string })[];
    },
    async acquire(runId: string, hold: AcquiredHold, p: { definition?: unknown; metadataPatch?: Record<string, unknown> | undefined }): Promise<Run> {
      const params: unknown[] = [
        JSON.stringify(p.metadataPatch ?? {}), hold.owner_id, hold.lease_expires_at, hold.status, hold.started_at_if_unset,
        hold.last_activity_at, hold.completed_at, hold.cancel_requested_at, runId,
      ];
      const extra: string[] = [];
      if (hold.clear_error) extra.push('error = NULL');
      if (p.definition !== undefined) {
        params.push(JSON.stringify(p.definition), nodeCountOf(p.definition));
        extra.push(`definition = $${params.length - 1}`, `node_count = $${params.length}`);
      }
      const rows = await q(
        `UPDATE workflow_runs
         SET metadata = cairn_merge_patch(metadata::jsonb, $1::jsonb)::text, owner_id = $2, lease_expires_at = $3, status = $4,
             started_at = COALESCE(started_at, $5), last_activity_at = $6, completed_at = $7, cancel_requested_at = $8
             ${extra.map((set) => `, ${set}`).join('')}
         WHERE id = $9
         RETURNING ${COLUMNS}`,
        params,
      );
      return toRun(rows[0]!);
    },
    async transition(runId: string, hold: TransitionedHold, p: { error?: string | null; metadataPatch?: Record<string, unknown> }): Promise<Run> {
      const params: unknown[] = [runId, hold.last_activity_at];
      const sets = ['last_activity_at = $2'];
      const set = (sql: string, value: unknown) => {
        params.push(value);
        sets.push(sql.replace('?', `$${params.length}`));
      };
      if (hold.status !== undefined) set('status = ?', hold.status);
      if (hold.completed_at !== undefined) set('completed_at = ?', hold.completed_at);
      if (p.error !== undefined) set('error = ?', p.error);
      if (p.metadataPatch) set('metadata = cairn_merge_patch(metadata::jsonb, ?::jsonb)::text', JSON.stringify(p.metadataPatch));
      if (hold.release) sets.push('owner_id = NULL', 'lease_expires_at = NULL');
      const rows = await q(`UPDATE workflow_runs SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`, params);
      return toRun(rows[0]!);
    },
    async renew(runIds: readonly string[], leaseUntil: string): Promise<void> {
      if (runIds.length > 0) await q('UPDATE workflow_runs SET lease_expires_at = $1 WHERE id = ANY($2::text[])', [leaseUntil, [...runIds]]);
    },
    async release(runId: string): Promise<void> {
      await q('UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL WHERE id = $1', [runId]);
    },
    /** The query form of rules/run-ownership.ts isTakeOverCandidate (the scan must not read every running run). */
    async listNotLeasedBy(ownerId: string, status: RunStatus, now: string): Promise<Run[]> {
      return (
        await q(
          `SELECT ${COLUMNS} FROM workflow_runs
           WHERE status = $1 AND (owner_id IS NULL OR owner_id <> $2 OR lease_expires_at < $3)
             AND NOT (owner_id IS NULL AND EXISTS (SELECT 1 FROM jobs WHERE jobs.run_id = workflow_runs.id
               AND jobs.kind = 'wake_run' AND jobs.status <> 'done'))
           ORDER BY created_at`,
          [status, ownerId, now],
        )
      ).map(toRun);
    },
    async remove(runId: string): Promise<boolean> {
      await q('DELETE FROM events WHERE run_id = $1', [runId]);
      await q('DELETE FROM jobs WHERE run_id = $1', [runId]);
      return (await q('DELETE FROM workflow_runs WHERE id = $1 RETURNING id', [runId])).length > 0;
    },
    async sleep(runId: string, now: string): Promise<void> {
      await q('UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL, last_activity_at = $2 WHERE id = $1', [runId, now]);
    },
    async setCancelRequestedAt(runId: string, at: string | null): Promise<void> {
      await q('UPDATE workflow_runs SET cancel_requested_at = $1 WHERE id = $2', [at, runId]);
    },
    async cancelRequestedAt(runId: string): Promise<string | null> {
      const [row] = await q('SELECT cancel_requested_at FROM workflow_runs WHERE id = $1', [runId]);
      return (row?.cancel_requested_at as string | null | undefined) ?? null;
    },
  };
}
