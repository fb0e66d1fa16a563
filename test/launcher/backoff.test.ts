import { describe, expect, it } from 'vitest';
import { createBackoff, defaultBackoff } from '../../src/launcher/backoff.js';

describe('restart back-off', () => {
  it('doubles from 100 ms up to 5 s for a child that keeps dying at once', () => {
    const backoff = createBackoff(defaultBackoff);
    const delays = Array.from({ length: 9 }, () => backoff.next(10));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
  });

  it('starts again from 100 ms once a child stayed up 30 s', () => {
    const backoff = createBackoff(defaultBackoff);
    for (let i = 0; i < 5; i++) backoff.next(10);
    expect(backoff.next(30_000)).toBe(100);
    expect(backoff.next(10)).toBe(200);
  });
});
