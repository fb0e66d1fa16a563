import type { Logger } from '../../shared/log.js';
import type { Schedule } from '../../store/schemas/schedule.js';
import type { Store } from '../../store/store.js';
import { isMissed } from '../../store/rules/schedule-fires.js';
import { scheduledRunOf, type WorkflowLookup } from '../../runs/schedule-run.js';
import { dueTimesBetween, nextFireTimes } from '../../workflow/triggers/cron-times.js';
import type { DeclaredTriggers } from './declared-triggers.js';

/** At most this many due times of one schedule are looked at per pass (the newest: a long downtime of a 1-s schedule). */
const MAX_DUE_PER_PASS = 100;
/** The loop looks again at least this often, whatever it expects (a clock that jumped, a missed notification). */
const MAX_SLEEP_MS = 5_000;
/** How often the workflow files' `triggers:` are read again. */
const DECLARED_EVERY_MS = 10_000;
/**
 * Store changes come in bursts while runs work (every event is a commit): the loop looks at most
 * this often because of them, so a busy engine does not pay a pass per commit.
 */
const MIN_PASS_GAP_MS = 250;

export interface ScheduleLoopDeps {
  store: Store;
  lookup: WorkflowLookup;
  /** The time the loop goes by (ms since the epoch); tests pass their own. */
  clock: () => number;
  log: Logger;
  /** Keeps the schedules the workflow files declare in the store; omitted: none are read. */
  declared?: DeclaredTriggers;
}

/**
 * The supervisor's fire loop: sleeps until the next due time of any schedule (woken sooner by a
 * store change: a schedule made, resumed or deleted, a run ended), then asks the store to decide
 * every due time since each schedule's cursor. The store decides each once, whichever supervisor
 * asks first, so several loops on one database (or one loop after a restart) never start a due
 * time twice; a due time found older than the schedule's catch-up window is recorded missed.
 * Buffered fires start here too, once the run before them has ended.
 */
export class ScheduleLoop {
  private running = false;
  private wake: (() => void) | undefined;
  private changed = false;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private declaredAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: ScheduleLoopDeps) {}

  start(): void {
    this.running = true;
    this.unsubscribe = this.deps.store.onChange(() => {
      this.changed = true;
      this.wake?.();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
  }

  /**
   * One look at every schedule: due times decided, buffered fires started. Answers how long until
   * the next due time of any schedule (ms), or undefined when none is coming.
   */
  async pass(): Promise<number | undefined> {
    if (this.deps.declared && this.deps.clock() - this.declaredAt >= DECLARED_EVERY_MS) {
      this.declaredAt = this.deps.clock();
      await this.deps.declared.sync();
    }
    const schedules = await this.deps.store.listSchedules();
    for (const schedule of schedules) if (!schedule.paused) await this.fireDue(schedule);
    await this.startBuffered();
    const now = this.deps.clock();
    let next: number | undefined;
    for (const schedule of schedules) {
      if (schedule.paused) continue;
      const [due] = nextFireTimes(schedule.cron, schedule.timezone, Math.max(now, Date.parse(schedule.cursor_at)), 1);
      if (due) next = Math.min(next ?? Infinity, due.getTime() - now);
    }
    return next;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.changed = false;
      const startedAt = performance.now();
      let nextInMs: number | undefined;
      try {
        nextInMs = await this.pass();
      } catch (err) {
        this.deps.log.warn({ err }, 'schedule.pass_failed');
      }
      if (!this.running) break;
      const nextPassAt = performance.now() + Math.max(0, Math.min(nextInMs ?? MAX_SLEEP_MS, MAX_SLEEP_MS));
      if (!this.changed) await this.sleep(nextPassAt - performance.now(), true);
      // Woken by a change: wait out the gap since the last pass, but never past the next due time.
      const gap = Math.min(startedAt + MIN_PASS_GAP_MS, nextPassAt) - performance.now();
      if (this.running && gap > 0) await this.sleep(gap, false);
    }
  }

  /** Waits `ms`; cut short by stop(), and by a store change when `byChange`. */
  private async sleep(ms: number, byChange: boolean): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        if (byChange || !this.running) {
          clearTimeout(timer);
          resolve();
        }
      };
    });
    this.wake = undefined;
  }

  /** Decides the schedule's due times after its cursor, oldest first. */
  private async fireDue(schedule: Schedule): Promise<void> {
    const now = this.deps.clock();
    const due = dueTimesBetween(schedule.cron, schedule.timezone, Date.parse(schedule.cursor_at), now, MAX_DUE_PER_PASS);
    for (const time of due) {
      const dueAt = time.toISOString();
      // A due time that will be recorded missed needs no run made for it.
      const missed = isMissed({ dueAt: time.getTime(), now, catchUpMs: schedule.catch_up_ms, manual: false });
      const made = missed ? { failure: 'missed' } : await scheduledRunOf({ ...this.deps }, schedule, dueAt);
      const answer = await this.deps.store.admitScheduleFire({ scheduleId: schedule.id, dueAt, now: new Date(now).toISOString(), ...made });
      if (!answer.decided) continue;
      const { fire } = answer;
      this.deps.log.info(
        { scheduleId: schedule.id, schedule: schedule.name, dueAt, outcome: fire.outcome, runId: fire.run_id, reason: fire.reason, cancelled: answer.cancelled },
        `schedule.fire_${fire.outcome}`,
      );
    }
  }

  private async startBuffered(): Promise<void> {
    for (const scheduleId of await this.deps.store.listSchedulesReadyToStartBuffered()) {
      const schedule = await this.deps.store.getSchedule(scheduleId);
      const oldest = (await this.deps.store.listScheduleFires(scheduleId, 1_000)).filter((f) => f.outcome === 'buffered').at(-1);
      // A paused schedule starts nothing, its buffered fires included, until it resumes.
      if (!schedule || schedule.paused || !oldest) continue;
      const made = await scheduledRunOf({ ...this.deps }, schedule, oldest.due_at);
      if (!('run' in made)) {
        this.deps.log.warn({ scheduleId, dueAt: oldest.due_at, reason: 'failure' in made ? made.failure : made.skip }, 'schedule.buffered_start_failed');
        continue;
      }
      const started = await this.deps.store.startBufferedFire(scheduleId, made.run);
      if (started) this.deps.log.info({ scheduleId, schedule: schedule.name, dueAt: started.fire.due_at, runId: started.run.id }, 'schedule.buffered_started');
    }
  }
}
