/**
 * Quotes a value as one POSIX shell word: single quotes, with each `'` written as `'\''`.
 * Nothing inside single quotes is expanded, so any text — `$(...)`, backticks, newlines —
 * reaches the script as data.
 */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}
