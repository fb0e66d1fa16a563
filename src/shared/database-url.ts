/**
 * `DATABASE_URL`: a `postgres://` (or `postgresql://`) URL selects the PostgreSQL store. Checked
 * by `cairn serve` before anything starts and by the settings of each process; the value is
 * never quoted back in the message, since it may hold a password.
 */
export const DATABASE_URL_PROBLEM =
  'DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/cairn; unset it to use the SQLite file in CAIRN_HOME';

/** The URL when `raw` is one, undefined when unset or empty; throws `DATABASE_URL_PROBLEM` (as `makeError` builds it) otherwise. */
export function databaseUrlFrom(raw: string | undefined, makeError: (message: string) => Error): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const url = raw.trim();
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^postgres(ql)?:$/i.test(parsed.protocol) || parsed.hostname === '') throw makeError(DATABASE_URL_PROBLEM);
  return url;
}
