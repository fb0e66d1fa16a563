/**
 * A module loaded on first use and kept: `import()` of a module already loaded still costs a
 * trip through the module loader (tens of µs), which an attempt would pay every time. A load
 * that fails is not kept, so the next call tries again, as a fresh `import()` would.
 */
export function loadOnce<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}
