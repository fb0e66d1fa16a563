/**
 * A catch-up window as written: a whole number and a unit (`30s`, `15m`, `1h`, `2d`), or `0`.
 * Due times missed by at most this much (the server was down, or asleep) still run when it comes
 * back; older ones are recorded missed.
 */
export const CATCH_UP_PATTERN = /^(\d{1,9})(s|m|h|d)?$/;

export const DEFAULT_CATCH_UP = '1h';

const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a catch-up window, or undefined when it is not written as one. */
export function catchUpMsOf(text: string): number | undefined {
  const match = CATCH_UP_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  if (match[2] === undefined && amount !== 0) return undefined;
  return amount * unitMs[(match[2] ?? 's') as keyof typeof unitMs];
}

export const catchUpText = (value: string) =>
  `catch_up '${value}' is not a duration: write a whole number and a unit, s, m, h or d (e.g. '15m', '1h'), or 0`;
