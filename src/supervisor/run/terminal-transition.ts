import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { Store, TransitionRun } from '../../store/store.js';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * Commits a run's terminal transition, retrying a failed write (a busy or full database) with
 * backoff until it commits, so that a run whose nodes are all done never stays non-terminal
 * because one write failed. Returns false only when the run is no longer ours to finish (its
 * owner changed: another supervisor took it over), which no retry can fix.
 */
/** `log` is the run's own logger (bound to its runId). */
export async function commitTerminalTransition(store: Store, transition: TransitionRun, log: Logger): Promise<boolean> {
  let delay = FIRST_RETRY_MS;
  for (let tries = 1; ; tries++) {
    try {
      await store.transitionRun(transition);
      if (tries > 1) log.info({ tries }, 'run.finish_committed');
      return true;
    } catch (err) {
      if (err instanceof CairnError && err.code === 'RUN_INVALID_STATE') {
        log.error({ err }, 'run.finish_lost_ownership');
        return false;
      }
      log.error({ err, tries, retryInMs: delay }, 'run.finish_failed');
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
