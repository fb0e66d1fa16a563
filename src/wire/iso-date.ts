/**
 * Whether `text` is an ISO 8601 date or time (`2026-01-31`, `2026-01-31T12:00:00Z`) naming a day
 * that exists. `Date.parse` alone rolls an impossible day over (`2026-02-30` reads as March 2),
 * so the written year, month and day are checked against the calendar too.
 */
export function isIsoDateText(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
