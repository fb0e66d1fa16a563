import type { Logger } from '../../shared/log.js';
import type { Store } from '../../store/store.js';

const DAY_MS = 86_400_000;
/** How often the record is looked at: a retention counted in days can be an hour late. */
const PRUNE_EVERY_MS = 3_600_000;
/**
 * Deliveries forgotten per transaction: each batch is one short write, and the webhook route's
 * admissions and the engine's writes get the lock between two batches.
 */
const PRUNE_BATCH = 500;

export interface DeliveryRetentionDeps {
  store: Pick<Store, 'pruneHookDeliveries'>;
  log: Logger;
  /** Days a delivery's record is kept after it was received (`webhooks.deliveryRetentionDays`). */
  retentionDays: number;
  /** The time the cutoff is counted from (ms since the epoch); the store's own clock in production. */
  clock: () => number;
  /** Tests shorten these. */
  everyMs?: number;
  batch?: number;
}

/**
 * The webhook deliveries' retention: once at start and then every hour, the supervisor forgets
 * the deliveries received longer ago than the retention, a batch per transaction until none is
 * left, and logs how many went. The runs they started stay. Several supervisors on one database
 * may prune at once: a delivery deleted by one is simply not counted by the other.
 */
export class DeliveryRetention {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;

  constructor(private readonly deps: DeliveryRetentionDeps) {}

  start(): void {
    this.stopped = false;
    this.runPass();
  }

  /** No pass starts after this; one under way ends after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  /** Forgets every delivery older than the retention, a batch at a time; answers how many went. */
  async prune(): Promise<number> {
    const { store, log, retentionDays } = this.deps;
    const batch = this.deps.batch ?? PRUNE_BATCH;
    const receivedBefore = new Date(this.deps.clock() - retentionDays * DAY_MS).toISOString();
    let deliveries = 0;
    let batches = 0;
    for (;;) {
      const gone = await store.pruneHookDeliveries(receivedBefore, batch);
      deliveries += gone;
      batches += 1;
      if (gone < batch || this.stopped) break;
    }
    if (deliveries > 0) log.info({ deliveries, batches, receivedBefore, retentionDays }, 'hook.deliveries_pruned');
    return deliveries;
  }

  private runPass(): void {
    this.pass = this.prune()
      .then(() => undefined)
      // A store that fails now (busy, a full disk) is asked again at the next pass, an hour on.
      .catch((err: unknown) => this.deps.log.warn({ err }, 'hook.deliveries_prune_failed'))
      .finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.runPass(), this.deps.everyMs ?? PRUNE_EVERY_MS);
        this.timer.unref();
      });
  }
}
