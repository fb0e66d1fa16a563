/**
 * One finding of `cairn doctor`: what was checked, how it stands, what was seen, and for anything
 * not ok, what to do about it.
 */

export type CheckStatus = 'ok' | 'warn' | 'failed';

export interface CheckResult {
  /** Stable id for scripts: `server`, `database`, `provider.claude.executable`. */
  id: string;
  /** What a person reads: `claude executable`. */
  name: string;
  status: CheckStatus;
  /** What was seen: paths, versions, addresses, where a credential came from (never a secret). */
  detail: string;
  /** What to do next; absent when the check is ok. */
  next?: string;
}

export function passed(id: string, name: string, detail: string): CheckResult {
  return { id, name, status: 'ok', detail };
}

export function warned(id: string, name: string, detail: string, next: string): CheckResult {
  return { id, name, status: 'warn', detail, next };
}

export function failed(id: string, name: string, detail: string, next: string): CheckResult {
  return { id, name, status: 'failed', detail, next };
}

/** A problem that breaks what the user asked for is a failure; one that may never matter, a warning. */
export function problem(serious: boolean, id: string, name: string, detail: string, next: string): CheckResult {
  return serious ? failed(id, name, detail, next) : warned(id, name, detail, next);
}
