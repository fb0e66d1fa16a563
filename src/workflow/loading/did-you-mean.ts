/**
 * The candidate closest to `name` by edit distance, if it is close enough to be a likely typo:
 * within `maxDistance` (default: a third of the name, at least 2), and never a rewrite of every
 * character (`zz` suggests nothing, not `a`).
 */
export function closestName(name: string, candidates: readonly string[], maxDistance?: number): string | undefined {
  // The first candidate at the smallest distance, if that distance is within `limit`. Each
  // candidate is measured only as far as it could still win, so a long list (every id of a
  // 10,000-node workflow) costs a length check for most of it.
  const limit = Math.min(maxDistance ?? Math.max(2, Math.floor(name.length / 3)), name.length - 1);
  const lower = name.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const bound = best ? best.distance - 1 : limit;
    if (bound < 0) break;
    const other = candidate.toLowerCase();
    if (Math.abs(other.length - lower.length) > bound) continue;
    const distance = editDistance(lower, other, bound);
    if (distance <= bound) best = { candidate, distance };
  }
  return best?.candidate;
}

/** " (did you mean 'x'?)" or "". */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const match = closestName(name, candidates);
  return match ? ` (did you mean '${match}'?)` : '';
}

/** Levenshtein distance of `a` and `b`, or `bound + 1` as soon as it must exceed `bound`. */
function editDistance(a: string, b: string, bound: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      const cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      current.push(cell);
      if (cell < rowMin) rowMin = cell;
    }
    if (rowMin > bound) return bound + 1;
    previous = current;
  }
  return previous[b.length]!;
}
