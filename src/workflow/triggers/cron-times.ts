import { Cron } from 'croner';

/**
 * A schedule's times: a cron expression read by croner in an IANA time zone. Five fields
 * (minute hour day month weekday) or six (seconds first). On a daylight-saving day croner keeps
 * wall-clock meaning: a time the clocks skip (02:30 on a spring-forward night) fires at the first
 * moment after the gap (03:00), and a time the clocks pass twice (fall back) fires once, at its
 * first occurrence. An interval schedule (a wildcard or step in the hour or minute: every 15
 * minutes) keeps its interval instead: times in the gap do not exist, and a repeated hour fires
 * twice. docs/schedules.md says so to users; test/workflow/triggers/ pins it.
 */

/** Why a cron expression or a time zone cannot be used, or undefined when both can. */
export function cronProblem(cron: string, timezone: string): string | undefined {
  const zone = timezoneProblem(timezone);
  if (zone) return zone;
  try {
    const job = compile(cron, timezone);
    if (job.nextRun(new Date(0)) === null && job.nextRun() === null) return `cron '${cron}' never fires`;
    return undefined;
  } catch (err) {
    return `cron '${cron}' is not a cron expression (${(err as Error).message}); write five fields ` +
      "(minute hour day month weekday, e.g. '0 3 * * *') or six with seconds first";
  }
}

/** Why `timezone` is not an IANA time zone name, or undefined. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return undefined;
  } catch {
    return `timezone '${timezone}' is not an IANA time zone name (e.g. 'UTC', 'Europe/Berlin', 'America/New_York')`;
  }
}

/** The next `count` fire times strictly after `after` (ms since the epoch). */
export function nextFireTimes(cron: string, timezone: string, after: number, count: number): Date[] {
  return compile(cron, timezone).nextRuns(count, new Date(after));
}

/**
 * The fire times in (`after`, `until`], oldest first, at most `max` of them (the newest kept: a
 * long downtime of a once-a-second schedule does not list every second).
 */
export function dueTimesBetween(cron: string, timezone: string, after: number, until: number, max: number): Date[] {
  const job = compile(cron, timezone);
  // The usual answer, nothing due yet, costs one step.
  const first = job.nextRun(new Date(after));
  if (first === null || first.getTime() > until) return [];
  // Counted back from `until`: a day's downtime of a once-a-second schedule costs `max` steps, not 86,400.
  return job
    .previousRuns(max, new Date(until + 1))
    .filter((due) => due.getTime() > after)
    .reverse();
}

function compile(cron: string, timezone: string): Cron {
  return new Cron(cron, { timezone, paused: true, mode: '5-or-6-parts' });
}
