import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError } from '../../shared/errors.js';
import { FaultBackoff } from '../../shared/fault-backoff.js';
import type { Logger } from '../../shared/log.js';
import type { Store, TransitionRun } from '../../store/store.js';

/**
 * Commits a run's terminal transition, retrying a failed write (a busy or full database) with
 * backoff (100 ms doubling to 5 s, logged once per interval) until it commits, so that a run
 * whose nodes are all done never stays non-terminal because one write failed. Returns false
 * only when the run is no longer ours to finish (its owner changed: another supervisor took it
 * over), which no retry can fix.
 */
/** `log` is the run's own logger (bound to its runId). */
export async function commitTerminalTransition(store: Store, transition: TransitionRun, log: Logger): Promise<boolean> {
  const faults = new FaultBackoff(log, { failed: 'run.finish_failed', recovered: 'run.finish_committed' });
  for (;;) {
    try {
      await store.transitionRun(transition);
      faults.succeeded();
      return true;
    } catch (err) {
      if (err instanceof CairnError && err.code === 'RUN_INVALID_STATE') {
        log.error({ err }, 'run.finish_lost_ownership');
        return false;
      }
      await sleep(faults.failed(err));
    }
  }
}
