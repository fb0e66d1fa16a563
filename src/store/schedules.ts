import type { NewRun } from './runs.js';
import type { Run } from './schemas/run.js';
import type { OverlapPolicy, Schedule, ScheduleFire } from './schemas/schedule.js';

export type { FireOutcome, OverlapPolicy, Schedule, ScheduleFire, ScheduleOrigin } from './schemas/schedule.js';

/**
 * Schedules and what became of each of their due times. The state of record is here, not in a
 * timer: each due time is decided once, keyed by (schedule, due time) under a unique key, in the
 * transaction that creates its run (or records it skipped, buffered, missed or failed). So a
 * restart, several fire loops on one database, or a clock that jumps never start a due time twice.
 * What a due time becomes is the engine's rule (store/rules/schedule-fires.ts).
 */
export interface ScheduleStore {
  /** Creates a schedule; SCHEDULE_EXISTS when another has its name. Its cursor starts at its creation. */
  createSchedule(schedule: NewSchedule): Promise<Schedule>;
  /** By id, or by name. */
  getSchedule(idOrName: string): Promise<Schedule | undefined>;
  /** By name. */
  listSchedules(): Promise<Schedule[]>;
  /**
   * Pauses or resumes. A paused schedule's due times pass undecided; a resume moves its cursor to
   * now, so the time it was paused is not caught up. Undefined when there is no such schedule.
   */
  setSchedulePaused(id: string, paused: boolean): Promise<Schedule | undefined>;
  /** Deletes a schedule and its fire history (its runs stay). False when there is none. */
  deleteSchedule(id: string): Promise<boolean>;
  /**
   * Makes the schedules declared by one scope's workflow files (`declaredIn`: `global`, or
   * `codebase:<id>`) what `declared` lists, in one transaction: new names created, known ones
   * updated (cron, time zone, inputs, overlap, catch-up; their pause and cursor kept), and that
   * scope's declared schedules no longer listed deleted, unless `keepUnlisted` (a scope with a
   * file that does not load: its schedules stay as they were until it loads again).
   */
  syncDeclaredSchedules(declaredIn: string, declared: readonly NewSchedule[], opts?: { keepUnlisted?: boolean }): Promise<DeclaredSync>;
  /**
   * Decides one due time of a schedule, once: in one transaction, under the schedule's lock, the
   * rule's decision is recorded with the key (schedule, due time), and a started run is created
   * (its row, `start_run` job and conversation) with it; `cancel_other` queues the `cancel_run`
   * jobs of the schedule's open runs there too. A due time decided already answers `decided:
   * false` with its fire; so does a cron due time at or before the cursor, paused, or gone.
   */
  admitScheduleFire(admission: FireAdmission): Promise<FireAnswer>;
  /**
   * The schedule's oldest buffered fire, started if the schedule has no open run: its run created
   * in the same transaction. Undefined when nothing was started.
   */
  startBufferedFire(scheduleId: string, run: NewRun): Promise<{ fire: ScheduleFire; run: Run } | undefined>;
  /** Ids of the schedules with a buffered fire and no open run (ready to start one). */
  listSchedulesReadyToStartBuffered(): Promise<string[]>;
  /** Newest first. */
  listScheduleFires(scheduleId: string, limit: number): Promise<ScheduleFire[]>;
}

export interface NewSchedule {
  id: string;
  name: string;
  workflowName: string;
  codebaseId: string | null;
  inputs: Record<string, string>;
  cron: string;
  timezone: string;
  overlap: OverlapPolicy;
  catchUpMs: number;
  paused?: boolean;
  /** Declared by a workflow file of this scope (`global`, `codebase:<id>`); omitted: made over the API. */
  declaredIn?: string;
}

export interface DeclaredSync {
  created: string[];
  updated: string[];
  removed: string[];
}

export interface FireAdmission {
  scheduleId: string;
  /** ISO. */
  dueAt: string;
  /** The fire loop's clock (ISO): what the catch-up window is measured against. */
  now: string;
  /** A "run now" request: never missed, and not bound to the cursor. */
  manual?: boolean;
  /** The run to create if the decision starts one. */
  run?: NewRun;
  /** Why no run could be made (the workflow is gone, its inputs no longer fit): recorded `failed` unless missed. */
  failure?: string;
  /** Why no run may be made (the workflow is interactive): recorded `skipped` unless missed. */
  skip?: string;
}

export type FireAnswer =
  | { decided: true; fire: ScheduleFire; run?: Run; cancelled: string[] }
  | { decided: false; fire?: ScheduleFire; why: 'decided_already' | 'before_cursor' | 'paused' | 'not_found' };
