import { terminalRunStatuses } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';

/**
 * Waits until every named run has ended (woken by the store's change notification), at most
 * `waitMs`; answers the ids still not ended then. An abandon's answer counts them as the part of
 * the descendant tree its cascade could not reach.
 */
export async function awaitRunsEnded(store: Pick<Store, 'getRun' | 'onChange'>, runIds: readonly string[], waitMs: number): Promise<string[]> {
  let open = [...runIds];
  const look = async (): Promise<boolean> => {
    const still: string[] = [];
    for (const id of open) {
      const run = await store.getRun(id);
      if (run && !terminalRunStatuses.includes(run.status)) still.push(id);
    }
    open = still;
    return open.length === 0;
  };
  if (await look()) return [];
  return new Promise<string[]>((resolve) => {
    let looking = false;
    let again = false;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(open);
    };
    const check = async () => {
      if (looking) return void (again = true);
      looking = true;
      try {
        do {
          again = false;
          if (await look()) return finish();
        } while (again && !finished);
      } catch {
        // A busy store: the next change (or the deadline) answers.
      } finally {
        looking = false;
      }
    };
    const unsubscribe = store.onChange(() => void check());
    const timer = setTimeout(finish, waitMs);
    void check();
  });
}
