/**
 * A seeded pseudo-random source (mulberry32): the same seed gives the same workflows, the same
 * kill targets and the same delays, so a failing `cairn stress --seed S` can be run again.
 * Not for anything secret.
 */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  /** One of `items` (not empty). */
  pick<T>(items: readonly T[]): T;
}

/** A generator whose sequence is fixed by `seed` (any 32-bit integer). */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
