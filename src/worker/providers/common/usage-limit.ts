import { instantOfWallTime, isKnownTimeZone, localTimeZone, wallDateAt, type WallDate } from './zoned-time.js';

/**
 * A subscription's usage limit, read from what the provider said: Claude Code's "You've hit your
 * session limit · resets 1:40am (UTC)" (its earlier "5-hour limit reached ∙ resets 3pm
 * (Europe/Paris)" and "Claude AI usage limit reached|<epoch>"), Codex's "You've hit your usage limit … try again at 3:20 PM" / "… try again in 2 days 3 hours",
 * the ChatGPT backend's `usage_limit_reached` body (`resets_at`, `resets_in_seconds`). Waiting
 * fixes such a failure, but hours later, not within a node's retries: the run can be resumed at
 * the reset (`auto_resume: { on_quota: true }`, docs/runs.md).
 */

export interface UsageLimit {
  /** When the provider says the limit resets (ISO), when it says so in a form read here. */
  resetAt?: string;
}

// Claude Code's own words are "You've hit your <name> · resets <time>", the name being "session
// limit", "5-hour limit", "weekly limit", "Opus limit", "monthly spend limit" and so on.
const reachedText =
  /\b(?:usage|hour|session|weekly|daily|monthly) limit (?:has been )?reached|hit your (?:[\w'’-]+ ){0,3}limit|usage_limit_reached|\bquota will reset\b|reached your (?:daily |weekly )?(?:usage |quota )?limit/i;

/** The usage limit `text` reports, or undefined when it reports none. `now` and `zone` read relative and zone-less times. */
export function usageLimitOf(text: string, now = Date.now(), zone = localTimeZone()): UsageLimit | undefined {
  if (!reachedText.test(text)) return undefined;
  const at = resetInstantOf(text, now, zone);
  return at === undefined ? {} : { resetAt: new Date(at).toISOString() };
}

/**
 * The instant a reset message names, in the first form that matches: an epoch after Claude's
 * `|`, the backend's `resets_at` / `resets_in_seconds`, an ISO time, a clock time (with a date
 * or a weekday, and a zone in parentheses, or the local zone), a duration ("in 2 days 3 hours").
 */
export function resetInstantOf(text: string, now = Date.now(), zone = localTimeZone()): number | undefined {
  const piped = /limit reached\|(\d{10})\b/i.exec(text);
  if (piped) return Number(piped[1]) * 1000;
  const resetsAt = /"resets_at"\s*:\s*(\d{10})\b/.exec(text);
  if (resetsAt) return Number(resetsAt[1]) * 1000;
  const resetsIn = /"resets_in_seconds"\s*:\s*(\d+)/.exec(text);
  if (resetsIn) return now + Number(resetsIn[1]) * 1000;
  const iso = /\b(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso && !Number.isNaN(Date.parse(iso[1]!.replace(' ', 'T')))) return Date.parse(iso[1]!.replace(' ', 'T'));
  return clockTimeOf(text, now, zone) ?? durationOf(text, now);
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const weekdays = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const clockTime = new RegExp(
  String.raw`\b(?:resets?|reset at|try again at|available again at|until)\s+(?:at\s+)?` +
    // a weekday ("Mon"), or a month and day ("Oct 9", "Nov 28th, 2026"), then an optional "at"
    String.raw`(?:(sun|mon|tue|wed|thu|fri|sat)[a-z]*,?\s+|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?)?(?:at\s+)?` +
    String.raw`(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?` +
    String.raw`(?:\s*\(([A-Za-z_+\-/0-9]+)\)|\s+(UTC|GMT)\b)?`,
  'i',
);

function clockTimeOf(text: string, now: number, localZone: string): number | undefined {
  const m = clockTime.exec(text);
  if (!m) return undefined;
  const [, weekday, month, dayText, yearText, hourText, minuteText, meridiem, zoneInParens, zoneWord] = m;
  let hour = Number(hourText);
  const minute = minuteText ? Number(minuteText) : 0;
  // A bare number with neither minutes nor am/pm is not a time ("resets in 5" is a duration).
  if (!minuteText && !meridiem) return undefined;
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (/^p/i.test(meridiem) ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const named = zoneInParens ?? zoneWord;
  const zone = named && isKnownTimeZone(named === 'GMT' ? 'UTC' : named) ? (named === 'GMT' ? 'UTC' : named) : localZone;
  const today = wallDateAt(now, zone);
  if (month) {
    const date: WallDate = { year: yearText ? Number(yearText) : today.year, month: months.indexOf(month.toLowerCase()) + 1, day: Number(dayText) };
    const at = instantOfWallTime(date, hour, minute, zone);
    // "Jan 2" read in late December is next year's.
    return !yearText && at < now - DAY_MS ? instantOfWallTime({ ...date, year: date.year + 1 }, hour, minute, zone) : at;
  }
  const ahead = weekday ? (weekdays.indexOf(weekday.toLowerCase()) - today.weekday + 7) % 7 : 0;
  let at = instantOfWallTime(addDays(today, ahead), hour, minute, zone);
  // A time of day already past today (or on today's weekday) is the next one.
  if (at <= now) at = instantOfWallTime(addDays(today, ahead + (weekday ? 7 : 1)), hour, minute, zone);
  return at;
}

const unitMs: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** "in 2 days 3 hours 5 minutes", "in 4h12m", "in 43.5s", "after 2h30m". */
function durationOf(text: string, now: number): number | undefined {
  const m = /\b(?:in|after)\s+((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|ms|m|seconds?|secs?|s)(?![a-z])[\s,]*(?:and\s+)?)+)/i.exec(text);
  if (!m) return undefined;
  let total = 0;
  for (const part of m[1]!.matchAll(/(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)[a-z]*/gi)) total += Number(part[1]) * unitMs[part[2]!.toLowerCase()]!;
  return total > 0 ? now + Math.round(total) : undefined;
}

const DAY_MS = 86_400_000;

function addDays(date: WallDate, days: number): WallDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
