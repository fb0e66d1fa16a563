import { CairnError } from '../../shared/errors.js';
import { decideFire, isBeforeCursor, mayStartBuffered, type FireDecision } from '../rules/schedule-fires.js';
import type { FireAnswer, ScheduleStore } from '../schedules.js';
import type { Run } from '../schemas/run.js';
import { jobStatements } from './jobs-sql.js';
import { runAdmission } from './run-admission.js';
import { scheduleStatements } from './schedules-sql.js';
import type { PgSession, Query } from './session.js';

const WEEK_MS = 7 * 24 * 3600_000;

/**
 * ScheduleStore over the session's pool. A due time is decided in one transaction that holds the
 * schedule's row lock (SELECT ... FOR UPDATE): decisions of one schedule never interleave, and
 * the (schedule, due time) primary key refuses a second row for a due time another supervisor
 * decided, so that supervisor's transaction answers `decided_already` instead.
 */
export function pgScheduleStore(session: PgSession): ScheduleStore {
  return {
    createSchedule: (schedule) =>
      session.write('create a schedule', async (q) => {
        const created = await scheduleStatements(q).insert(schedule, session.now());
        if (!created) throw new CairnError('SCHEDULE_EXISTS', `A schedule named '${schedule.name}' exists already; pick another name or remove it first`);
        return created;
      }),

    getSchedule: (idOrName) => session.read('read a schedule', (q) => scheduleStatements(q).get(idOrName)),

    listSchedules: () => session.read('list schedules', (q) => scheduleStatements(q).list()),

    setSchedulePaused: (id, paused) =>
      session.write(paused ? 'pause a schedule' : 'resume a schedule', async (q) => {
        const schedules = scheduleStatements(q);
        const schedule = await schedules.get(id, true);
        if (!schedule) return undefined;
        await schedules.setPaused(schedule.id, paused, session.now());
        return schedules.get(schedule.id);
      }),

    deleteSchedule: (id) => session.write('delete a schedule', (q) => scheduleStatements(q).remove(id)),

    syncDeclaredSchedules: (declaredIn, declared, opts = {}) =>
      session.write('sync declared schedules', async (q) => {
        const schedules = scheduleStatements(q);
        const now = session.now();
        // Two supervisors syncing one scope at once take turns.
        await q('SELECT pg_advisory_xact_lock(hashtext($1))', [`schedules:${declaredIn}`]);
        const known = new Map((await schedules.declaredIn(declaredIn)).map((s) => [s.name, s]));
        const result = { created: [] as string[], updated: [] as string[], removed: [] as string[] };
        for (const schedule of declared) {
          const existing = known.get(schedule.name);
          known.delete(schedule.name);
          if (existing) {
            await schedules.update(existing.id, schedule, now);
            result.updated.push(schedule.name);
          } else if (await schedules.insert({ ...schedule, declaredIn }, now)) {
            result.created.push(schedule.name);
          }
        }
        for (const gone of opts.keepUnlisted ? [] : known.values()) {
          await schedules.remove(gone.id);
          result.removed.push(gone.name);
        }
        return result;
      }),

    admitScheduleFire: (admission) =>
      session.write('decide a due time of a schedule', async (q): Promise<FireAnswer> => {
        const schedules = scheduleStatements(q);
        const now = session.now();
        const schedule = await schedules.get(admission.scheduleId, true);
        if (!schedule) return { decided: false, why: 'not_found' };
        const manual = admission.manual === true;
        const existing = await schedules.fire(schedule.id, admission.dueAt);
        if (existing) return { decided: false, fire: existing, why: 'decided_already' };
        if (isBeforeCursor(admission.dueAt, schedule.cursor_at, manual)) return { decided: false, why: 'before_cursor' };
        if (schedule.paused && !manual) return { decided: false, why: 'paused' };
        const openRunIds = await schedules.openRunIds(schedule.id);
        let decision: FireDecision = decideFire({
          overlap: schedule.overlap, dueAt: Date.parse(admission.dueAt), now: Date.parse(admission.now), catchUpMs: schedule.catch_up_ms,
          manual, openRunIds, buffered: await schedules.bufferedCount(schedule.id),
          failure: admission.run || admission.skip !== undefined ? admission.failure : (admission.failure ?? 'no run was given to start'),
          skip: admission.skip,
        });
        let run: Run | undefined;
        const cancelled: string[] = [];
        if (decision.outcome === 'started') {
          // The workflow's own concurrency policy next: a refusal records the due time as skipped.
          const admitted = await runAdmission(q).admit(admission.run!, now);
          if ('refused' in admitted) decision = { outcome: 'skipped', reason: admitted.refused };
          else {
            for (const runId of decision.cancel) await jobStatements(q).insert('cancel_run', runId, {}, now);
            run = admitted.run;
            cancelled.push(...decision.cancel, ...admitted.cancelled);
          }
        }
        const fire = await schedules.insertFire({
          scheduleId: schedule.id, dueAt: admission.dueAt, outcome: decision.outcome, runId: run?.id ?? null, manual,
          reason: 'reason' in decision ? decision.reason : null, now,
        });
        if (!manual) await schedules.moveCursor(schedule.id, admission.dueAt);
        await schedules.prune(schedule.id, new Date(Date.parse(admission.dueAt) - WEEK_MS).toISOString());
        return { decided: true, fire, ...(run ? { run } : {}), cancelled };
      }),

    startBufferedFire: (scheduleId, newRun) =>
      session.write('start a buffered fire of a schedule', async (q) => {
        const schedules = scheduleStatements(q);
        if (!(await schedules.get(scheduleId, true))) return undefined;
        const buffered = await schedules.oldestBuffered(scheduleId);
        if (!buffered || !mayStartBuffered(await schedules.openRunIds(scheduleId), 1)) return undefined;
        const now = session.now();
        const admitted = await runAdmission(q).admit(newRun, now);
        if ('refused' in admitted) {
          await schedules.skipFire(scheduleId, buffered.due_at, admitted.refused);
          return undefined;
        }
        return { fire: await schedules.startFire(scheduleId, buffered.due_at, admitted.run.id, now), run: admitted.run };
      }),

    listSchedulesReadyToStartBuffered: () =>
      session.read('list schedules with buffered fires to start', (q) => scheduleStatements(q).readyToStartBuffered()),

    listScheduleFires: (scheduleId, limit) => session.read("list a schedule's fires", (q) => scheduleStatements(q).fires(scheduleId, limit)),
  };
}
