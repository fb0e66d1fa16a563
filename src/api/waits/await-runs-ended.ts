import { terminalRunStatuses } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { awaitStore } from './await-store.js';

/**
 * Waits until every named run has ended (woken by the store's change notification), at most
 * `waitMs`; answers the ids still not ended then. An abandon's answer counts them as the part of
 * the descendant tree its cascade could not reach.
 */
export async function awaitRunsEnded(store: Pick<Store, 'getRun' | 'onChange'>, runIds: readonly string[], waitMs: number): Promise<string[]> {
  let open = [...runIds];
  const look = async (): Promise<string[] | undefined> => {
    const still: string[] = [];
    for (const id of open) {
      const run = await store.getRun(id);
      if (run && !terminalRunStatuses.includes(run.status)) still.push(id);
    }
    open = still;
    return open.length === 0 ? [] : undefined;
  };
  return awaitStore(store, look, waitMs, () => open);
}
