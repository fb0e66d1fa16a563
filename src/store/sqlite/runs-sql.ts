import type Database from 'better-sqlite3';
import { runStatusSchema, terminalRunStatuses, type Run, type RunStatus } from '../schemas/run.js';
import type { NewRun, RunListQuery } from '../runs.js';
import { RUN_COLUMNS, toRun } from '../rows.js';
import type { AcquiredHold, RunHold, TransitionedHold } from '../rules/run-ownership.js';

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
  // The query form of rules/run-ownership.ts isTakeOverCandidate (kept a query: the take-over
  // scan must not read every running run). A sleeping run (released with a wake-up queued:
  // nobody owns it, on purpose) is not an orphan: its `wake_run` job brings it back.
  const notLeasedBy = db.prepare(
    `SELECT ${COLUMNS} FROM workflow_runs
     WHERE status = @status AND (owner_id IS NULL OR owner_id <> @owner OR lease_expires_at < @now)
       AND NOT (owner_id IS NULL AND EXISTS (SELECT 1 FROM jobs WHERE jobs.run_id = workflow_runs.id
         AND jobs.kind = 'wake_run' AND jobs.status <> 'done'))
     ORDER BY created_at`,
  );
  // Letting go of a running run to sleep (rules/run-ownership.ts maySleep decides whether).
  const sleep = db.prepare(
    'UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL, last_activity_at = @now WHERE id = @runId',
  );
  const deleteEvents = db.prepare('DELETE FROM events WHERE run_id = ?');
  const deleteJobs = db.prepare('DELETE FROM jobs WHERE run_id = ?');
  const deleteRun = db.prepare('DELETE FROM workflow_runs WHERE id = ?');
  const cancelRequestedAt = db.prepare('SELECT cancel_requested_at FROM workflow_runs WHERE id = ?');
  const holdOf = db.prepare('SELECT status, owner_id, lease_expires_at, cancel_requested_at FROM workflow_runs WHERE id = ?');
  const holdsOf = db.prepare(
    'SELECT id, status, owner_id, lease_expires_at, cancel_requested_at FROM workflow_runs WHERE id IN (SELECT value FROM json_each(?))',
  );
  const renewOne = db.prepare('UPDATE workflow_runs SET lease_expires_at = ? WHERE id = ?');
  const releaseOne = db.prepare('UPDATE workflow_runs SET owner_id = NULL, lease_expires_at = NULL WHERE id = ?');
  const setCancel = db.prepare('UPDATE workflow_runs SET cancel_requested_at = ? WHERE id = ?');

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
    /** The part of the run the ownership rules read (rules/run-ownership.ts), undefined when there is no such run. */
    hold(runId: string): RunHold | undefined {
      return holdOf.get(runId) as RunHold | undefined;
    },
    /** The holds of the named runs, by id. */
    holds(runIds: readonly string[]): (RunHold & { id: string })[] {
      return holdsOf.all(JSON.stringify(runIds)) as (RunHold & { id: string })[];
    },
    /** Stores an acquire the rules allowed (acquiredHold), with its metadata patch and new definition. */
    acquire(runId: string, hold: AcquiredHold, p: { definition?: unknown; metadataPatch?: Record<string, unknown> | undefined }): Run {
      const extra = [
        ...(hold.clear_error ? ['error = NULL'] : []),
        ...(p.definition !== undefined ? ['definition = @definition', "node_count = COALESCE(json_array_length(@definition, '$.nodes'), 0)"] : []),
      ];
      const row = db
        .prepare(
          `UPDATE workflow_runs
           SET metadata = json_patch(metadata, @patch), owner_id = @owner, lease_expires_at = @lease, status = @status,
               started_at = COALESCE(started_at, @startedAt), last_activity_at = @activity, completed_at = @completedAt,
               cancel_requested_at = @cancel
               ${extra.map((set) => `, ${set}`).join('')}
           WHERE id = @runId
           RETURNING ${COLUMNS}`,
        )
        .get({
          patch: JSON.stringify(p.metadataPatch ?? {}), owner: hold.owner_id, lease: hold.lease_expires_at, status: hold.status,
          startedAt: hold.started_at_if_unset, activity: hold.last_activity_at, completedAt: hold.completed_at,
          cancel: hold.cancel_requested_at, runId,
          ...(p.definition !== undefined ? { definition: JSON.stringify(p.definition) } : {}),
        });
      return toRun(row as Record<string, unknown>);
    },
    /** Stores a transition the rules allowed (transitionedHold), with its error and metadata patch. */
    transition(runId: string, hold: TransitionedHold, p: { error?: string | null; metadataPatch?: Record<string, unknown> }): Run {
      const sets = ['last_activity_at = @activity'];
      if (hold.status !== undefined) sets.push('status = @status');
      if (hold.completed_at !== undefined) sets.push('completed_at = @completedAt');
      if (p.error !== undefined) sets.push('error = @error');
      if (p.metadataPatch) sets.push('metadata = json_patch(metadata, @patch)');
      if (hold.release) sets.push('owner_id = NULL', 'lease_expires_at = NULL');
      const row = db
        .prepare(`UPDATE workflow_runs SET ${sets.join(', ')} WHERE id = @runId RETURNING ${COLUMNS}`)
        .get({
          runId,
          activity: hold.last_activity_at,
          status: hold.status ?? null,
          completedAt: hold.completed_at ?? null,
          error: p.error ?? null,
          patch: JSON.stringify(p.metadataPatch ?? {}),
        });
      return toRun(row as Record<string, unknown>);
    },
    /** Sets the lease of a run the rules let its owner renew (mayRenewLease). */
    renew(runId: string, leaseUntil: string): void {
      renewOne.run(leaseUntil, runId);
    },
    /** Gives up the ownership of a run the rules let its owner release (mayRelease). */
    release(runId: string): void {
      releaseOne.run(runId);
    },
    listNotLeasedBy(ownerId: string, status: RunStatus, now: string): Run[] {
      return notLeasedBy.all({ status, owner: ownerId, now }).map((r) => toRun(r as Record<string, unknown>));
    },
    /** Deletes the run, its events and its jobs (the rules' mayDelete allowed it). */
    remove(runId: string): boolean {
      // Children first: the foreign keys cascade too, but the delete must not depend on the pragma.
      deleteEvents.run(runId);
      deleteJobs.run(runId);
      return deleteRun.run(runId).changes > 0;
    },
    /** Releases a running run its owner lets sleep (the rules' maySleep allowed it). */
    sleep(runId: string, now: string): void {
      sleep.run({ runId, now });
    },
    /** Stores the run's cancel request as the rules decided it (cancelRequestAfter). */
    setCancelRequestedAt(runId: string, at: string | null): void {
      setCancel.run(at, runId);
    },
    cancelRequestedAt(runId: string): string | null {
      const row = cancelRequestedAt.get(runId) as { cancel_requested_at: string | null } | undefined;
      return row?.cancel_requested_at ?? null;
    },
  };
}
