/**
 * Wall-clock times in an IANA time zone, turned into instants with the platform's own zone
 * data (Intl), so daylight-saving days come out right without a zone table of our own.
 */

export interface WallDate {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
}

/** The calendar date and weekday (0 = Sunday) an instant falls on in `timeZone`. */
export function wallDateAt(instant: number, timeZone: string): WallDate & { weekday: number } {
  const parts = partsAt(instant, timeZone);
  const weekday = new Date(Date.UTC(parts.year, parts.month - 1, parts.day)).getUTCDay();
  return { year: parts.year, month: parts.month, day: parts.day, weekday };
}

/**
 * The instant a wall-clock time names in `timeZone`. A time a spring-forward skips is read as
 * the same time after the jump (2:30 on such a night is 3:30); a time a fall-back repeats is its
 * first occurrence.
 */
export function instantOfWallTime(date: WallDate, hour: number, minute: number, timeZone: string): number {
  const asUtc = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  // Read with the zone's offset a day before and a day after: a time that exists takes the first
  // reading that shows it on the wall; a skipped one, the reading with the offset before the jump.
  const before = asUtc - offsetAt(asUtc - DAY_MS, timeZone);
  const after = asUtc - offsetAt(asUtc + DAY_MS, timeZone);
  const shows = (instant: number) => {
    const p = partsAt(instant, timeZone);
    return p.year === date.year && p.month === date.month && p.day === date.day && p.hour === hour && p.minute === minute;
  };
  const matching = [before, after].filter(shows).sort((a, b) => a - b);
  return matching[0] ?? before;
}

/** True when `timeZone` is a zone this platform knows (an IANA name, or `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The time zone this process reads wall-clock times in (what a CLI it starts prints its times in). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The zone's offset from UTC at `instant`, in ms (positive east of Greenwich). */
function offsetAt(instant: number, timeZone: string): number {
  const p = partsAt(instant, timeZone);
  const wallAsUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wallAsUtc - Math.floor(instant / 1000) * 1000;
}

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsAt(instant: number, timeZone: string): WallDate & { hour: number; minute: number; second: number } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const got: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) if (part.type !== 'literal') got[part.type] = Number(part.value);
  return { year: got.year!, month: got.month!, day: got.day!, hour: got.hour!, minute: got.minute!, second: got.second! };
}
