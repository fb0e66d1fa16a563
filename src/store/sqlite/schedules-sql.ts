import type Database from 'better-sqlite3';
import type { NewSchedule } from '../schedules.js';
import { terminalRunStatuses } from '../schemas/run.js';
import type { Schedule, ScheduleFire } from '../schemas/schedule.js';
import { toSchedule, toScheduleFire } from '../schedule-rows.js';

type Row = Record<string, unknown>;
const terminal = `(${terminalRunStatuses.map((status) => `'${status}'`).join(', ')})`;

/** Statements for `schedules` and `schedule_fires`. Callers wrap multi-statement changes in a transaction. */
export function scheduleStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO schedules (id, name, workflow_name, codebase_id, inputs, cron, timezone, overlap, catch_up_ms, paused,
       declared_in, cursor_at, created_at, updated_at)
     VALUES (@id, @name, @workflowName, @codebaseId, @inputs, @cron, @timezone, @overlap, @catchUpMs, @paused,
       @declaredIn, @now, @now, @now)
     ON CONFLICT (name) DO NOTHING RETURNING *`,
  );
  const update = db.prepare(
    `UPDATE schedules SET workflow_name = @workflowName, codebase_id = @codebaseId, inputs = @inputs, cron = @cron,
       timezone = @timezone, overlap = @overlap, catch_up_ms = @catchUpMs, updated_at = @now WHERE id = @id`,
  );
  const byId = db.prepare('SELECT * FROM schedules WHERE id = ?');
  const byName = db.prepare('SELECT * FROM schedules WHERE name = ?');
  const all = db.prepare('SELECT * FROM schedules ORDER BY name');
  const declared = db.prepare('SELECT * FROM schedules WHERE declared_in = ?');
  const setPaused = db.prepare('UPDATE schedules SET paused = ?, cursor_at = CASE WHEN ? > cursor_at THEN ? ELSE cursor_at END, updated_at = ? WHERE id = ?');
  const moveCursor = db.prepare('UPDATE schedules SET cursor_at = ? WHERE id = ? AND cursor_at < ?');
  const remove = db.prepare('DELETE FROM schedules WHERE id = ?');
  const fire = db.prepare('SELECT * FROM schedule_fires WHERE schedule_id = ? AND due_at = ?');
  const insertFire = db.prepare(
    `INSERT INTO schedule_fires (schedule_id, due_at, outcome, run_id, manual, reason, decided_at, started_at)
     VALUES (@scheduleId, @dueAt, @outcome, @runId, @manual, @reason, @now, @startedAt) RETURNING *`,
  );
  const startFire = db.prepare(
    `UPDATE schedule_fires SET outcome = 'started', run_id = ?, started_at = ? WHERE schedule_id = ? AND due_at = ? RETURNING *`,
  );
  const skipFire = db.prepare(`UPDATE schedule_fires SET outcome = 'skipped', reason = ? WHERE schedule_id = ? AND due_at = ?`);
  const openRuns = db.prepare(
    `SELECT r.id FROM schedule_fires f JOIN workflow_runs r ON r.id = f.run_id
     WHERE f.schedule_id = ? AND f.run_id IS NOT NULL AND r.status NOT IN ${terminal} ORDER BY f.due_at`,
  );
  const oldestBuffered = db.prepare(`SELECT * FROM schedule_fires WHERE schedule_id = ? AND outcome = 'buffered' ORDER BY due_at LIMIT 1`);
  const bufferedCount = db.prepare(`SELECT COUNT(*) AS n FROM schedule_fires WHERE schedule_id = ? AND outcome = 'buffered'`);
  const readyToStart = db.prepare(
    `SELECT DISTINCT b.schedule_id FROM schedule_fires b WHERE b.outcome = 'buffered' AND NOT EXISTS (
       SELECT 1 FROM schedule_fires f JOIN workflow_runs r ON r.id = f.run_id
       WHERE f.schedule_id = b.schedule_id AND f.run_id IS NOT NULL AND r.status NOT IN ${terminal})`,
  );
  const fires = db.prepare('SELECT * FROM schedule_fires WHERE schedule_id = ? ORDER BY due_at DESC LIMIT ?');
  // History older than a week is let go, except what still matters: buffered fires and open runs.
  const prune = db.prepare(
    `DELETE FROM schedule_fires WHERE schedule_id = @scheduleId AND due_at < @before AND outcome <> 'buffered'
       AND (run_id IS NULL OR NOT EXISTS (SELECT 1 FROM workflow_runs r WHERE r.id = run_id AND r.status NOT IN ${terminal}))`,
  );

  const scheduleParams = (s: NewSchedule, now: string) => ({
    id: s.id, name: s.name, workflowName: s.workflowName, codebaseId: s.codebaseId, inputs: JSON.stringify(s.inputs),
    cron: s.cron, timezone: s.timezone, overlap: s.overlap, catchUpMs: s.catchUpMs, paused: s.paused ? 1 : 0,
    declaredIn: s.declaredIn ?? null, now,
  });

  return {
    /** Undefined when the name is taken. */
    insert(s: NewSchedule, now: string): Schedule | undefined {
      const row = insert.get(scheduleParams(s, now)) as Row | undefined;
      return row ? toSchedule(row) : undefined;
    },
    update(id: string, s: NewSchedule, now: string): void {
      update.run({ ...scheduleParams(s, now), id });
    },
    get(idOrName: string): Schedule | undefined {
      const row = (byId.get(idOrName) ?? byName.get(idOrName)) as Row | undefined;
      return row ? toSchedule(row) : undefined;
    },
    list: (): Schedule[] => all.all().map((r) => toSchedule(r as Row)),
    declaredIn: (scope: string): Schedule[] => declared.all(scope).map((r) => toSchedule(r as Row)),
    setPaused(id: string, paused: boolean, now: string): void {
      // A resume moves the cursor to now: the paused time is not caught up.
      const cursor = paused ? '' : now;
      setPaused.run(paused ? 1 : 0, cursor, cursor, now, id);
    },
    moveCursor: (id: string, to: string): void => void moveCursor.run(to, id, to),
    remove: (id: string): boolean => remove.run(id).changes > 0,
    fire(scheduleId: string, dueAt: string): ScheduleFire | undefined {
      const row = fire.get(scheduleId, dueAt) as Row | undefined;
      return row ? toScheduleFire(row) : undefined;
    },
    insertFire(f: { scheduleId: string; dueAt: string; outcome: string; runId: string | null; manual: boolean; reason: string | null; now: string }): ScheduleFire {
      return toScheduleFire(insertFire.get({ ...f, manual: f.manual ? 1 : 0, startedAt: f.runId ? f.now : null }) as Row);
    },
    startFire(scheduleId: string, dueAt: string, runId: string, now: string): ScheduleFire {
      return toScheduleFire(startFire.get(runId, now, scheduleId, dueAt) as Row);
    },
    /** A buffered fire that cannot start after all (its workflow's concurrency refused it), and why. */
    skipFire: (scheduleId: string, dueAt: string, reason: string): void => void skipFire.run(reason, scheduleId, dueAt),
    openRunIds: (scheduleId: string): string[] => openRuns.all(scheduleId).map((r) => String((r as Row).id)),
    oldestBuffered(scheduleId: string): ScheduleFire | undefined {
      const row = oldestBuffered.get(scheduleId) as Row | undefined;
      return row ? toScheduleFire(row) : undefined;
    },
    bufferedCount: (scheduleId: string): number => Number((bufferedCount.get(scheduleId) as Row).n),
    readyToStartBuffered: (): string[] => readyToStart.all().map((r) => String((r as Row).schedule_id)),
    fires: (scheduleId: string, limit: number): ScheduleFire[] => fires.all(scheduleId, limit).map((r) => toScheduleFire(r as Row)),
    prune: (scheduleId: string, before: string): void => void prune.run({ scheduleId, before }),
  };
}
