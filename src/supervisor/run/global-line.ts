import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { GLOBAL_KEY, GLOBAL_SLOT, placeWorthRecording } from './engine-slots.js';
import type { Slots } from './slots.js';

/**
 * What the global limit is taken from: the supervisor's own `Slots` (engine-slots.ts), or that
 * wrapped so each holder also holds a place shared by every supervisor on the database
 * (process/cluster-held-limiter.ts).
 */
export type GlobalLimiter = Pick<Slots, 'run' | 'limitOf'>;

/**
 * A run's attempts waiting for a slot of the global limit (`concurrency.max`), each with its
 * place in the line every run of the supervisor shares: a `global_queued` event when the attempt
 * starts waiting and each time it moves within the first QUEUE_POSITIONS_SHOWN places, never
 * more. An attempt that gets its slot at once writes nothing.
 */
export class GlobalLine {
  constructor(
    private readonly deps: {
      run: Pick<Run, 'id' | 'conversation_id'>;
      store: Pick<Store, 'appendEvents'>;
      log: Logger;
      limiter: GlobalLimiter;
    },
  ) {}

  /**
   * Runs `fn` holding a global slot for the node at `path` (`nodeId` its id), waiting in line for
   * it; `dropped` when `signal` aborted first (nothing ran).
   */
  run<T>(path: string, nodeId: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<{ dropped: true } | { dropped: false; value: T }> {
    let shown: number | undefined;
    return this.deps.limiter.run(GLOBAL_SLOT, fn, signal, (position, newlyQueued) => {
      if (!placeWorthRecording(position, newlyQueued, shown)) return;
      shown = position;
      const event = {
        run_id: this.deps.run.id,
        conversation_id: this.deps.run.conversation_id,
        step_name: path,
        event_type: 'global_queued',
        data: { node_id: nodeId, position, limit: this.deps.limiter.limitOf(GLOBAL_KEY) ?? null },
      };
      void this.deps.store.appendEvents([event]).catch((err: unknown) => this.deps.log.warn({ err }, 'node.queued_record_failed'));
    });
  }
}
