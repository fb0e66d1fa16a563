import type Database from 'better-sqlite3';
import { runStatusSchema, terminalRunStatuses, type Run, type RunStatus } from '../schemas/run.js';
import type { NewRun, RunListQuery } from '../runs.js';
import { RUN_COLUMNS, toRun } from './rows.js';

/** Every column toRun reads, never the definition (megabytes for a large workflow). */
const COLUMNS = RUN_COLUMNS.join(', ');

/** `('completed', 'failed', 'cancelled')`, for SQL. */
const terminal = `(${terminalRunStatuses.map((status) => `'${status}'`).join(', ')})`;
/** The other statuses, so a query for open runs reads the status index, not every run. */
const open = `(${runStatusSchema.options.filter((s) => !terminalRunStatuses.includes(s)).map((s) => `'${s}'`).join(', ')})`;

/** Statements for `workflow_runs`. Callers wrap multi-statement changes in a transaction. */
export function runStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, working_path, codebase_id,
       user_message, inputs, metadata, definition, node_count, user_id, created_at, last_activity_at,
       parent_run_id, parent_node_id, child_index)
     VALUES (@id, @workflowName, 'pending', @conversationId, @workingPath, @codebaseId, @userMessage,
       @inputs, @metadata, @definition, COALESCE(json_array_length(@definition, '$.nodes'), 0), @userId, @now, @now,
       @parentRunId, @parentNodeId, @childIndex)
     RETURNING ${COLUMNS}`,
  );
  const childOf = db.prepare(
    `SELECT ${COLUMNS} FROM workflow_runs WHERE parent_run_id = ? AND parent_node_id = ? AND child_index = ?`,
  );
  const childrenOf = db.prepare(
    `SELECT ${COLUMNS} FROM workflow_runs WHERE parent_run_id = ? AND parent_node_id = ? ORDER BY child_index`,
  );
  // Every run below this one (children, their children, ...) that has not ended, nearest first.
  const openDescendants = db.prepare(
    `WITH RECURSIVE tree(id, depth) AS (
       SELECT id, 1 FROM workflow_runs WHERE parent_run_id = ?
       UNION ALL
       SELECT r.id, tree.depth + 1 FROM workflow_runs r JOIN tree ON r.parent_run_id = tree.id WHERE tree.depth < 64
     )
     SELECT ${RUN_COLUMNS.map((c) => `r.${c}`).join(', ')} FROM workflow_runs r JOIN tree ON tree.id = r.id
     WHERE r.status NOT IN ${terminal} ORDER BY tree.depth, r.created_at`,
  );
  const byId = db.prepare(`SELECT ${COLUMNS} FROM workflow_runs WHERE id = ?`);
  const definition = db.prepare('SELECT definition FROM workflow_runs WHERE id = ?');
  const countByStatus = db.prepare('SELECT COUNT(*) AS n FROM workflow_runs WHERE status = ?');
  const openOf = db.prepare(
    `SELECT ${COLUMNS} FROM workflow_runs
     WHERE status IN ${open} AND (conversation_id = @id OR json_extract(metadata, '$.parent_conversation_id') = @id)
     ORDER BY created_at DESC, rowid DESC`,
  );
  // Only the runs the caller names: a lease is renewed for a run it still drives, not for every
  // run it happens to own.
  const renew = db.prepare(
    `UPDATE workflow_runs SET lease_expires_at = ?
     WHERE owner_id = ? AND status NOT IN ${terminal} AND id IN (SELECT value FROM json_each(?))`,
  );
  const release = db.prepare(
    'UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL WHERE id = ? AND owner_id = ?',
  );
  // A sleeping run (released with a wake-up queued: nobody owns it, on purpose) is not an
  // orphan: its `wake_run` job brings it back.
  const notLeasedBy = db.prepare(
    `SELECT ${COLUMNS} FROM workflow_runs
     WHERE status = @status AND (owner_id IS NULL OR owner_id <> @owner OR lease_expires_at < @now)
       AND NOT (owner_id IS NULL AND EXISTS (SELECT 1 FROM jobs WHERE jobs.run_id = workflow_runs.id
         AND jobs.kind = 'wake_run' AND jobs.status <> 'done'))
     ORDER BY created_at`,
  );
  // Letting go of a running run to sleep: only its owner, and not once a cancel is on it (the
  // cancel's job is handed to the owner, who must still be driving the run).
  const sleep = db.prepare(
    `UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL, last_activity_at = @now
     WHERE id = @runId AND owner_id = @owner AND status = 'running' AND cancel_requested_at IS NULL`,
  );
  // The first request wins: a second cancel does not move the time of the first.
  const requestCancel = db.prepare(
    `UPDATE workflow_runs SET cancel_requested_at = COALESCE(cancel_requested_at, ?)
     WHERE id = ? AND status NOT IN ${terminal}`,
  );
  const deleteEvents = db.prepare('DELETE FROM events WHERE run_id = ?');
  const deleteJobs = db.prepare('DELETE FROM jobs WHERE run_id = ?');
  const deleteRun = db.prepare('DELETE FROM workflow_runs WHERE id = ?');
  const cancelRequestedAt = db.prepare('SELECT cancel_requested_at FROM workflow_runs WHERE id = ?');

  return {
    insert(run: NewRun, now: string): Run {
      const row = insert.get({
        id: run.id,
        workflowName: run.workflowName,
        conversationId: run.conversationId,
        workingPath: run.workingPath,
        codebaseId: run.codebaseId ?? null,
        userMessage: run.userMessage,
        inputs: JSON.stringify(run.inputs),
        metadata: JSON.stringify(run.metadata),
        definition: JSON.stringify(run.definition),
        userId: run.userId ?? null,
        now,
        parentRunId: run.parent?.runId ?? null,
        parentNodeId: run.parent?.nodeId ?? null,
        childIndex: run.parent?.childIndex ?? null,
      });
      return toRun(row as Record<string, unknown>);
    },
    /** The child a parent's node started at `childIndex`, if any. */
    child(parentRunId: string, nodeId: string, childIndex: number): Run | undefined {
      const row = childOf.get(parentRunId, nodeId, childIndex);
      return row ? toRun(row as Record<string, unknown>) : undefined;
    },
    /** The children a parent's node started, by index. */
    children(parentRunId: string, nodeId: string): Run[] {
      return (childrenOf.all(parentRunId, nodeId) as Record<string, unknown>[]).map(toRun);
    },
    /** The run's descendants that have not ended, nearest first. */
    openDescendants(runId: string): Run[] {
      return (openDescendants.all(runId) as Record<string, unknown>[]).map(toRun);
    },
    get(id: string): Run | undefined {
      const row = byId.get(id);
      return row ? toRun(row as Record<string, unknown>) : undefined;
    },
    definition(id: string): unknown {
      const row = definition.get(id) as { definition: string } | undefined;
      return row ? JSON.parse(row.definition) : undefined;
    },
    list(query: RunListQuery): Run[] {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.status) (where.push('status = ?'), params.push(query.status));
      if (query.conversationId) (where.push('conversation_id = ?'), params.push(query.conversationId));
      if (query.workflowName) (where.push('workflow_name = ?'), params.push(query.workflowName));
      if (query.codebaseId) (where.push('codebase_id = ?'), params.push(query.codebaseId));
      const sql = `SELECT ${COLUMNS} FROM workflow_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY created_at DESC, rowid DESC LIMIT ?`;
      return db
        .prepare(sql)
        .all(...params, query.limit)
        .map((r) => toRun(r as Record<string, unknown>));
    },
    openOf(conversationId: string): Run[] {
      return openOf.all({ id: conversationId }).map((r) => toRun(r as Record<string, unknown>));
    },
    count(status: RunStatus): number {
      return (countByStatus.get(status) as { n: number }).n;
    },
    /** Compare-and-set ownership: see RunStore.acquireRun. */
    acquire(p: {
      runId: string; ownerId: string; leaseUntil: string; now: string;
      fromStatuses: readonly RunStatus[]; status: RunStatus; previousOwner: string | null;
      resume?: boolean; definition?: unknown;
      metadataPatch?: Record<string, unknown> | undefined;
      onlyUnowned?: boolean;
    }): Run | undefined {
      const placeholders = p.fromStatuses.map(() => '?').join(', ');
      const extra = [
        ...(p.resume ? ['error = NULL', 'cancel_requested_at = NULL'] : []),
        ...(p.definition !== undefined ? ['definition = ?', "node_count = COALESCE(json_array_length(?, '$.nodes'), 0)"] : []),
      ];
      const row = db
        .prepare(
          `UPDATE workflow_runs
           SET metadata = json_patch(metadata, ?), owner_id = ?, lease_expires_at = ?, status = ?,
               started_at = COALESCE(started_at, ?), last_activity_at = ?,
               completed_at = CASE WHEN ? IN ${terminal} THEN ? ELSE NULL END
               ${extra.map((set) => `, ${set}`).join('')}
           WHERE id = ? AND status IN (${placeholders})
             AND (owner_id IS NULL OR (${p.onlyUnowned ? '0' : '1'} AND (owner_id = ? OR owner_id = ? OR lease_expires_at < ?)))
           RETURNING ${COLUMNS}`,
        )
        .get(
          JSON.stringify(p.metadataPatch ?? {}), p.ownerId, p.leaseUntil, p.status, p.now, p.now, p.status, p.now,
          ...(p.definition !== undefined ? [JSON.stringify(p.definition)].flatMap((json) => [json, json]) : []),
          p.runId, ...p.fromStatuses, p.ownerId, p.previousOwner ?? p.ownerId, p.now,
        );
      return row ? toRun(row as Record<string, unknown>) : undefined;
    },
    /** Owner-checked update; returns undefined when the caller no longer owns the run. */
    transition(p: {
      runId: string; ownerId: string; now: string; status?: RunStatus; error?: string | null;
      metadataPatch?: Record<string, unknown>; release: boolean;
    }): Run | undefined {
      const sets = ['last_activity_at = @now'];
      if (p.status) sets.push('status = @status');
      if (p.status && terminalRunStatuses.includes(p.status)) sets.push('completed_at = @now');
      if (p.error !== undefined) sets.push('error = @error');
      if (p.metadataPatch) sets.push('metadata = json_patch(metadata, @patch)');
      if (p.release) sets.push('owner_id = NULL', 'lease_expires_at = NULL');
      const row = db
        .prepare(
          `UPDATE workflow_runs SET ${sets.join(', ')}
           WHERE id = @runId AND owner_id = @ownerId RETURNING ${COLUMNS}`,
        )
        .get({
          runId: p.runId,
          ownerId: p.ownerId,
          now: p.now,
          status: p.status ?? null,
          error: p.error ?? null,
          patch: JSON.stringify(p.metadataPatch ?? {}),
        });
      return row ? toRun(row as Record<string, unknown>) : undefined;
    },
    /** Extends the leases of the named non-terminal runs `ownerId` owns. Returns how many. */
    renew(ownerId: string, runIds: readonly string[], leaseUntil: string): number {
      if (runIds.length === 0) return 0;
      return renew.run(leaseUntil, ownerId, JSON.stringify(runIds)).changes;
    },
    release(ownerId: string, runId: string): void {
      release.run(runId, ownerId);
    },
    listNotLeasedBy(ownerId: string, status: RunStatus, now: string): Run[] {
      return notLeasedBy.all({ status, owner: ownerId, now }).map((r) => toRun(r as Record<string, unknown>));
    },
    /** Deletes the run, its events and its jobs when its status is one of `fromStatuses`. */
    remove(runId: string, fromStatuses: readonly RunStatus[]): boolean {
      const placeholders = fromStatuses.map(() => '?').join(', ');
      const found = db.prepare(`SELECT 1 FROM workflow_runs WHERE id = ? AND status IN (${placeholders})`).get(runId, ...fromStatuses);
      if (!found) return false;
      // Children first: the foreign keys cascade too, but the delete must not depend on the pragma.
      deleteEvents.run(runId);
      deleteJobs.run(runId);
      return deleteRun.run(runId).changes > 0;
    },
    /** Releases a running run its owner lets sleep; false when `owner` does not hold it or a cancel is on it. */
    sleep(runId: string, owner: string, now: string): boolean {
      return sleep.run({ runId, owner, now }).changes > 0;
    },
    requestCancel(runId: string, now: string): void {
      requestCancel.run(now, runId);
    },
    cancelRequestedAt(runId: string): string | null {
      const row = cancelRequestedAt.get(runId) as { cancel_requested_at: string | null } | undefined;
      return row?.cancel_requested_at ?? null;
    },
  };
}
