/**
 * Polls `check` until it returns a truthy value, then returns it. For waiting on state in the
 * store or on a process, never on a fixed sleep; the deadline only turns a hang into a failure.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'} (last value: ${String(last)})`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 20));
  }
}
