/**
 * The time Cairn's processes go by: the system clock, moved by `CAIRN_CLOCK_OFFSET_MS` when set.
 * The offset exists for tests only (a long `wait` is woken without waiting it out): every
 * timestamp the store writes and compares, and the moment a `wait` node wakes, follow it.
 */
const offsetMs = parseOffset(process.env.CAIRN_CLOCK_OFFSET_MS);

function parseOffset(raw: string | undefined): number {
  const value = Number(raw ?? 0);
  return Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** Milliseconds since the epoch, as Cairn sees them. */
export function clockNow(): number {
  return Date.now() + offsetMs;
}
