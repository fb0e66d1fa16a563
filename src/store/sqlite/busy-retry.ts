import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError } from '../../shared/errors.js';

/** How an operation waits out a database that another connection keeps busy. */
export interface BusyRetryPolicy {
  /** Total time to keep retrying before failing with STORE_UNAVAILABLE. */
  budgetMs: number;
  /** Aborted when the store closes: a waiting operation gives up at once. */
  signal: AbortSignal;
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, _RECOVERY, _TIMEOUT). */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Runs `attempt` (synchronous: one statement or one transaction) until it does not fail with
 * SQLITE_BUSY. Each try blocks the thread for at most the connection's `busy_timeout`; between
 * tries the event loop is free (the API answers, heartbeats go out, cancels arrive). The first
 * try runs at once, so an idle database costs nothing extra.
 */
export async function retryWhileBusy<T>(what: string, attempt: () => T, policy: BusyRetryPolicy): Promise<T> {
  const started = performance.now();
  for (let tries = 1; ; tries++) {
    try {
      return attempt();
    } catch (err) {
      if (!isBusyError(err)) throw err;
      const waitedMs = Math.round(performance.now() - started);
      const leftMs = policy.budgetMs - waitedMs;
      if (leftMs <= 0 || policy.signal.aborted) throw unavailable(what, tries, waitedMs, err, policy.signal.aborted);
      try {
        await sleep(Math.min(leftMs, backoffMs(tries)), undefined, { signal: policy.signal });
      } catch {
        throw unavailable(what, tries, waitedMs, err, true);
      }
    }
  }
}

/**
 * Exponential from 5 ms, capped at 250 ms, with jitter so that writers woken by the same
 * commit do not collide again in step.
 */
function backoffMs(tries: number): number {
  const ceiling = Math.min(250, 5 * 2 ** (tries - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function unavailable(what: string, tries: number, waitedMs: number, cause: unknown, closed: boolean): CairnError {
  const message = closed
    ? `The store was closed while waiting to ${what}: the database was busy`
    : `The database stayed busy for ${Math.round(waitedMs / 1000)} s while trying to ${what}: another ` +
      'process holds a long write transaction on it. Retry later; if it persists, stop the other ' +
      'program that has the Cairn database open (a second `cairn serve` on the same CAIRN_HOME, ' +
      'or a sqlite3 shell inside a transaction).';
  return new CairnError('STORE_UNAVAILABLE', message, { what, tries, waitedMs, closed }, { cause });
}
