import type { ClusterSlots } from '../../store/cluster-slots.js';
import { GLOBAL_KEY } from '../run/engine-slots.js';
import type { GlobalLimiter } from '../run/global-line.js';

/** The key of the global limit's places in the database (provider places are `provider:<id>`). */
export const CLUSTER_GLOBAL_KEY = 'global';

/**
 * The supervisor's global limit (`concurrency.max`), with each holder of one of its slots also
 * holding one of the limit's places in the database while its attempt runs and its records are
 * written: the limit then holds across every supervisor on the database, not only within this
 * one. The supervisor's own line comes first (its positions are what `global_queued` records),
 * then the shared place; a wait for it that the signal ends drops the attempt unrun, as a wait
 * in the line does.
 */
export function clusterHeld(limiter: GlobalLimiter, slots: ClusterSlots): GlobalLimiter {
  return {
    limitOf: (key) => limiter.limitOf(key),
    async run(keys, fn, signal, onWait) {
      const limit = limiter.limitOf(GLOBAL_KEY);
      if (limit === undefined) return limiter.run(keys, fn, signal, onWait);
      const ran = await limiter.run(keys, () => slots.run(CLUSTER_GLOBAL_KEY, limit, fn, signal), signal, onWait);
      if (ran.dropped || ran.value === undefined) return { dropped: true };
      return { dropped: false, value: ran.value.value };
    },
  };
}
