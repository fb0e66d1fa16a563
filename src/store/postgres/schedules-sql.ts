import type { NewSchedule } from '../schedules.js';
import { terminalRunStatuses } from '../schemas/run.js';
import type { Schedule, ScheduleFire } from '../schemas/schedule.js';
import { toSchedule, toScheduleFire } from '../schedule-rows.js';
import type { Query } from './session.js';

const terminal = `(${terminalRunStatuses.map((status) => `'${status}'`).join(', ')})`;

/** Statements for `schedules` and `schedule_fires`. Callers run multi-statement changes inside one write. */
export function scheduleStatements(q: Query) {
  const params = (s: NewSchedule) =>
    [s.id, s.name, s.workflowName, s.codebaseId, JSON.stringify(s.inputs), s.cron, s.timezone, s.overlap, s.catchUpMs] as const;
  const schedule = async (sql: string, values: readonly unknown[]): Promise<Schedule | undefined> => {
    const [row] = await q(sql, values);
    return row ? toSchedule(row) : undefined;
  };
  const fire = async (sql: string, values: readonly unknown[]): Promise<ScheduleFire | undefined> => {
    const [row] = await q(sql, values);
    return row ? toScheduleFire(row) : undefined;
  };

  return {
    /** Undefined when the name is taken. */
    insert: (s: NewSchedule, now: string) =>
      schedule(
        `INSERT INTO schedules (id, name, workflow_name, codebase_id, inputs, cron, timezone, overlap, catch_up_ms, paused,
           declared_in, cursor_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $12)
         ON CONFLICT (name) DO NOTHING RETURNING *`,
        [...params(s), s.paused ? 1 : 0, s.declaredIn ?? null, now],
      ),
    async update(id: string, s: NewSchedule, now: string): Promise<void> {
      await q(
        `UPDATE schedules SET workflow_name = $3, codebase_id = $4, inputs = $5, cron = $6, timezone = $7, overlap = $8,
           catch_up_ms = $9, updated_at = $10 WHERE id = $1 AND name = $2`,
        [id, ...params(s).slice(1), now],
      );
    },
    /** By id or name; `lock` holds the row until the transaction ends (one decision per schedule at a time). */
    get: (idOrName: string, lock = false) =>
      schedule(`SELECT * FROM schedules WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`, [idOrName]),
    list: async (): Promise<Schedule[]> => (await q('SELECT * FROM schedules ORDER BY name')).map(toSchedule),
    declaredIn: async (scope: string): Promise<Schedule[]> => (await q('SELECT * FROM schedules WHERE declared_in = $1 FOR UPDATE', [scope])).map(toSchedule),
    async setPaused(id: string, paused: boolean, now: string): Promise<void> {
      // A resume moves the cursor to now: the paused time is not caught up.
      await q(
        `UPDATE schedules SET paused = $2, updated_at = $3,
           cursor_at = CASE WHEN $2 = 0 AND $3 > cursor_at THEN $3 ELSE cursor_at END WHERE id = $1`,
        [id, paused ? 1 : 0, now],
      );
    },
    async moveCursor(id: string, to: string): Promise<void> {
      await q('UPDATE schedules SET cursor_at = $2 WHERE id = $1 AND cursor_at < $2', [id, to]);
    },
    remove: async (id: string): Promise<boolean> => (await q('DELETE FROM schedules WHERE id = $1 RETURNING id', [id])).length > 0,
    fire: (scheduleId: string, dueAt: string) => fire('SELECT * FROM schedule_fires WHERE schedule_id = $1 AND due_at = $2', [scheduleId, dueAt]),
    insertFire: async (f: { scheduleId: string; dueAt: string; outcome: string; runId: string | null; manual: boolean; reason: string | null; now: string }) =>
      (await fire(
        `INSERT INTO schedule_fires (schedule_id, due_at, outcome, run_id, manual, reason, decided_at, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [f.scheduleId, f.dueAt, f.outcome, f.runId, f.manual ? 1 : 0, f.reason, f.now, f.runId ? f.now : null],
      ))!,
    startFire: async (scheduleId: string, dueAt: string, runId: string, now: string) =>
      (await fire(
        `UPDATE schedule_fires SET outcome = 'started', run_id = $3, started_at = $4 WHERE schedule_id = $1 AND due_at = $2 RETURNING *`,
        [scheduleId, dueAt, runId, now],
      ))!,
    /** A buffered fire that cannot start after all (its workflow's concurrency refused it), and why. */
    skipFire: async (scheduleId: string, dueAt: string, reason: string): Promise<void> => {
      await q(`UPDATE schedule_fires SET outcome = 'skipped', reason = $3 WHERE schedule_id = $1 AND due_at = $2`, [scheduleId, dueAt, reason]);
    },
    openRunIds: async (scheduleId: string): Promise<string[]> =>
      (
        await q(
          `SELECT r.id FROM schedule_fires f JOIN workflow_runs r ON r.id = f.run_id
           WHERE f.schedule_id = $1 AND f.run_id IS NOT NULL AND r.status NOT IN ${terminal} ORDER BY f.due_at`,
          [scheduleId],
        )
      ).map((r) => String(r.id)),
    oldestBuffered: (scheduleId: string) =>
      fire(`SELECT * FROM schedule_fires WHERE schedule_id = $1 AND outcome = 'buffered' ORDER BY due_at LIMIT 1`, [scheduleId]),
    bufferedCount: async (scheduleId: string): Promise<number> =>
      Number((await q(`SELECT COUNT(*) AS n FROM schedule_fires WHERE schedule_id = $1 AND outcome = 'buffered'`, [scheduleId]))[0]!.n),
    readyToStartBuffered: async (): Promise<string[]> =>
      (
        await q(
          `SELECT DISTINCT b.schedule_id FROM schedule_fires b WHERE b.outcome = 'buffered' AND NOT EXISTS (
             SELECT 1 FROM schedule_fires f JOIN workflow_runs r ON r.id = f.run_id
             WHERE f.schedule_id = b.schedule_id AND f.run_id IS NOT NULL AND r.status NOT IN ${terminal})`,
        )
      ).map((r) => String(r.schedule_id)),
    fires: async (scheduleId: string, limit: number): Promise<ScheduleFire[]> =>
      (await q('SELECT * FROM schedule_fires WHERE schedule_id = $1 ORDER BY due_at DESC LIMIT $2', [scheduleId, limit])).map(toScheduleFire),
    /** History older than `before` is let go, except buffered fires and open runs. */
    async prune(scheduleId: string, before: string): Promise<void> {
      await q(
        `DELETE FROM schedule_fires WHERE schedule_id = $1 AND due_at < $2 AND outcome <> 'buffered'
           AND (run_id IS NULL OR NOT EXISTS (SELECT 1 FROM workflow_runs r WHERE r.id = run_id AND r.status NOT IN ${terminal}))`,
        [scheduleId, before],
      );
    },
  };
}
