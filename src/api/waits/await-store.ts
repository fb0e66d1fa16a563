import type { Store } from '../../store/store.js';

/**
 * Waits until `look` answers something (woken by the store's change notification, never a poll of
 * our own), at most `waitMs`; then answers `timedOut()`. Looks never overlap: a change during a
 * look makes one more. A look that throws (a busy store) waits for the next change or the deadline.
 */
export async function awaitStore<T>(
  store: Pick<Store, 'onChange'>,
  look: () => Promise<T | undefined>,
  waitMs: number,
  timedOut: () => T,
): Promise<T> {
  const first = await look();
  if (first !== undefined) return first;
  return new Promise<T>((resolve) => {
    let looking = false;
    let again = false;
    let finished = false;
    const finish = (value: T) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(value);
    };
    const check = async () => {
      if (looking) return void (again = true);
      looking = true;
      try {
        do {
          again = false;
          const value = await look();
          if (value !== undefined) return finish(value);
        } while (again && !finished);
      } catch {
        // A busy store: the next change (or the deadline) answers.
      } finally {
        looking = false;
      }
    };
    const unsubscribe = store.onChange(() => void check());
    const timer = setTimeout(() => finish(timedOut()), waitMs);
    // A commit between the first look and the subscription would have no change to announce it.
    void check();
  });
}
