import { setTimeout as sleep } from 'node:timers/promises';
import { isWorthWaitingFor } from '../../shared/store-faults.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Appends the record that ends an attempt, retrying until it commits when the database cannot
 * take it now: another process holding the write lock past the store's own 30 s, a full disk.
 * The attempt has ended, so its outcome (a success above all, or a paid call's spend) is never
 * turned into a failure because one write failed. Meanwhile the node stays running and keeps
 * its slot, as it would for a slow node. Gives up only when the store closes (the supervisor is
 * going away: a take-over finds the attempt started and runs it again) or on an error no wait can
 * mend (a record that does not validate is a bug).
 */
export async function appendTerminalRecord(store: Store, events: readonly NewRunEvent[]): Promise<void> {
  let delay = FIRST_RETRY_MS;
  for (;;) {
    try {
      await store.appendEvents(events);
      return;
    } catch (err) {
      if (!isWorthWaitingFor(err)) throw err;
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
