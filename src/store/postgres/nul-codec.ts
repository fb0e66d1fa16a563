/**
 * PostgreSQL's text cannot hold NUL, which Cairn stores as it is given (a message, a title, a
 * run's message may carry one). Every string crosses the driver through this reversible escape:
 * NUL is stored as ESC + '0', and ESC itself (a private-use character, U+E000) as ESC + '1', so
 * every other string is stored unchanged, and equal strings stay equal in SQL.
 */
const ESC = '\uE000';

export function encodeText(value: string): string {
  if (!value.includes('\0') && !value.includes(ESC)) return value;
  return value.replace(/[\0\uE000]/g, (c) => (c === '\0' ? `${ESC}0` : `${ESC}1`));
}

export function decodeText(value: string): string {
  if (!value.includes(ESC)) return value;
  return value.replace(/\uE000([01])/g, (_, d: string) => (d === '0' ? '\0' : ESC));
}

/** A statement's parameters with their strings (and strings in arrays) encoded. */
export function encodeParams(params: readonly unknown[]): unknown[] {
  return params.map((p) => (typeof p === 'string' ? encodeText(p) : Array.isArray(p) ? p.map((v) => (typeof v === 'string' ? encodeText(v) : v)) : p));
}

/** A row with its string columns decoded, in place. */
export function decodeRow<R extends Record<string, unknown>>(row: R): R {
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (typeof value === 'string' && value.includes(ESC)) (row as Record<string, unknown>)[key] = decodeText(value);
  }
  return row;
}
