import { CairnError } from '../../shared/errors.js';
import { decideFire, isBeforeCursor, mayStartBuffered, type FireDecision } from '../rules/schedule-fires.js';
import type { FireAnswer, ScheduleStore } from '../schedules.js';
import type { Run } from '../schemas/run.js';
import { jobStatements } from './jobs-sql.js';
import { runAdmission } from './run-admission.js';
import { scheduleStatements } from './schedules-sql.js';
import type { SqliteSession } from './session.js';

const WEEK_MS = 7 * 24 * 3600_000;

/**
 * ScheduleStore over the session's connection. A due time is decided in one BEGIN IMMEDIATE
 * transaction (no other writer between reading the schedule's open runs and writing the fire):
 * the fire row under its (schedule, due time) key, and the run it starts, together.
 */
export function sqliteScheduleStore(session: SqliteSession): ScheduleStore {
  const schedules = scheduleStatements(session.db);
  const jobs = jobStatements(session.db);
  const runs = runAdmission(session.db);

  return {
    createSchedule: (schedule) =>
      session.write('create a schedule', () => {
        const created = schedules.insert(schedule, session.now());
        if (!created) throw new CairnError('SCHEDULE_EXISTS', `A schedule named '${schedule.name}' exists already; pick another name or remove it first`);
        return created;
      }),

    getSchedule: (idOrName) => session.read('read a schedule', () => schedules.get(idOrName)),

    listSchedules: () => session.read('list schedules', () => schedules.list()),

    setSchedulePaused: (id, paused) =>
      session.write(paused ? 'pause a schedule' : 'resume a schedule', () => {
        if (!schedules.get(id)) return undefined;
        schedules.setPaused(id, paused, session.now());
        return schedules.get(id);
      }),

    deleteSchedule: (id) => session.write('delete a schedule', () => schedules.remove(id)),

    syncDeclaredSchedules: (declaredIn, declared, opts = {}) =>
      session.write('sync declared schedules', () => {
        const now = session.now();
        const known = new Map(schedules.declaredIn(declaredIn).map((s) => [s.name, s]));
        const result = { created: [] as string[], updated: [] as string[], removed: [] as string[] };
        for (const schedule of declared) {
          const existing = known.get(schedule.name);
          known.delete(schedule.name);
          if (existing) {
            schedules.update(existing.id, schedule, now);
            result.updated.push(schedule.name);
          } else if (schedules.insert({ ...schedule, declaredIn }, now)) {
            result.created.push(schedule.name);
          }
        }
        for (const gone of opts.keepUnlisted ? [] : known.values()) {
          schedules.remove(gone.id);
          result.removed.push(gone.name);
        }
        return result;
      }),

    admitScheduleFire: (admission) =>
      session.write('decide a due time of a schedule', (): FireAnswer => {
        const now = session.now();
        const schedule = schedules.get(admission.scheduleId);
        if (!schedule) return { decided: false, why: 'not_found' };
        const manual = admission.manual === true;
        const existing = schedules.fire(schedule.id, admission.dueAt);
        if (existing) return { decided: false, fire: existing, why: 'decided_already' };
        if (isBeforeCursor(admission.dueAt, schedule.cursor_at, manual)) return { decided: false, why: 'before_cursor' };
        if (schedule.paused && !manual) return { decided: false, why: 'paused' };
        const openRunIds = schedules.openRunIds(schedule.id);
        let decision: FireDecision = decideFire({
          overlap: schedule.overlap, dueAt: Date.parse(admission.dueAt), now: Date.parse(admission.now), catchUpMs: schedule.catch_up_ms,
          manual, openRunIds, buffered: schedules.bufferedCount(schedule.id),
          failure: admission.run || admission.skip !== undefined ? admission.failure : (admission.failure ?? 'no run was given to start'),
          skip: admission.skip,
        });
        let run: Run | undefined;
        const cancelled: string[] = [];
        if (decision.outcome === 'started') {
          // The workflow's own concurrency policy next: a refusal records the due time as skipped.
          const admitted = runs.admit(admission.run!, now);
          if ('refused' in admitted) decision = { outcome: 'skipped', reason: admitted.refused };
          else {
            for (const runId of decision.cancel) jobs.insert('cancel_run', runId, {}, now);
            run = admitted.run;
            cancelled.push(...decision.cancel, ...admitted.cancelled);
          }
        }
        const fire = schedules.insertFire({
          scheduleId: schedule.id, dueAt: admission.dueAt, outcome: decision.outcome, runId: run?.id ?? null, manual,
          reason: 'reason' in decision ? decision.reason : null, now,
        });
        if (!manual) schedules.moveCursor(schedule.id, admission.dueAt);
        schedules.prune(schedule.id, new Date(Date.parse(admission.dueAt) - WEEK_MS).toISOString());
        return { decided: true, fire, ...(run ? { run } : {}), cancelled };
      }),

    startBufferedFire: (scheduleId, newRun) =>
      session.write('start a buffered fire of a schedule', () => {
        const buffered = schedules.oldestBuffered(scheduleId);
        if (!buffered || !mayStartBuffered(schedules.openRunIds(scheduleId), 1)) return undefined;
        const now = session.now();
        const admitted = runs.admit(newRun, now);
        if ('refused' in admitted) {
          schedules.skipFire(scheduleId, buffered.due_at, admitted.refused);
          return undefined;
        }
        return { fire: schedules.startFire(scheduleId, buffered.due_at, admitted.run.id, now), run: admitted.run };
      }),

    listSchedulesReadyToStartBuffered: () => session.read('list schedules with buffered fires to start', () => schedules.readyToStartBuffered()),

    listScheduleFires: (scheduleId, limit) => session.read("list a schedule's fires", () => schedules.fires(scheduleId, limit)),
  };
}
