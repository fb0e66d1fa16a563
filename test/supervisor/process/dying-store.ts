import type { Store } from '../../../src/store/store.js';

/** One store call as it returned: the method's name, its arguments and its answer. */
export interface StoreCall {
  method: string;
  args: unknown[];
  result: unknown;
}

export interface DyingStore {
  /** The store to give the supervisor that is to die. */
  store: Store;
  /**
   * Resolves once the chosen call has committed and every call that was under way then has
   * settled: from here the database holds exactly what the killed process left behind.
   */
  died: Promise<StoreCall>;
  /** For cleanup only: answers the calls held since the death, so the process can be shut down. */
  revive(): void;
}

/**
 * The real store of a supervisor that is killed -9 right after a chosen commit: once `diesAfter`
 * says so of a call's answer, that answer is never delivered, and no later call of the process
 * reaches the database (each waits, as the calls of a dead process would, for ever). Nothing is
 * faked: every call before the death is the real store's, committed as it commits.
 */
export function dyingStore(real: Store, diesAfter: (call: StoreCall) => boolean): DyingStore {
  let dead = false;
  let revived = false;
  let reportDeath!: (call: StoreCall) => void;
  const died = new Promise<StoreCall>((resolve) => (reportDeath = resolve));
  const inFlight = new Set<Promise<unknown>>();
  const held: (() => void)[] = [];
  const hold = <T>(deliver: () => Promise<T>): Promise<T> => new Promise<T>((resolve, reject) => held.push(() => void deliver().then(resolve, reject)));

  const store = new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      // onChange answers at once with its unsubscribe; the listener's calls are held like any other.
      if (typeof value !== 'function' || prop === 'onChange') return typeof value === 'function' ? value.bind(target) : value;
      const method = String(prop);
      return (...args: unknown[]) => {
        const call = () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (dead) return hold(call);
        const answer = call();
        inFlight.add(answer);
        const settled = answer.finally(() => inFlight.delete(answer));
        return settled.then((result) => {
          if (dead) return hold(() => Promise.resolve(result));
          if (revived || !diesAfter({ method, args, result })) return result;
          dead = true;
          const others = [...inFlight].map((p) => p.catch(() => undefined));
          void Promise.all(others).then(() => reportDeath({ method, args, result }));
          return hold(() => Promise.resolve(result));
        });
      };
    },
  });
  return {
    store,
    died,
    revive() {
      dead = false;
      revived = true;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}
