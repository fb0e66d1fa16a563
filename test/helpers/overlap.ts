/**
 * The most `[start, end]` intervals open at once: how many processes overlapped, from the
 * timestamps they wrote themselves (`date +%s%N` at start and end). An interval that ends at the
 * moment another starts does not overlap it.
 */
export function peakOverlap(intervals: readonly (readonly [number, number])[]): number {
  const edges = intervals.flatMap(([s, e]) => [[s, 1], [e, -1]] as [number, number][]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}
