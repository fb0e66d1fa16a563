import { expect, it } from 'vitest';
import { AttemptLimiter } from '../../../src/supervisor/run/limits.js';

/** A promise the test resolves by hand: a task that holds its slot until released. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

it('never runs more tasks at once than its limit', async () => {
  const limiter = new AttemptLimiter(3);
  let running = 0;
  let peak = 0;
  const gates = Array.from({ length: 10 }, gate);
  const tasks = gates.map((g) =>
    limiter.run(async () => {
      peak = Math.max(peak, ++running);
      await g.opened;
      running--;
    }),
  );
  expect(limiter.active).toBe(3);
  expect(limiter.queued).toBe(7);
  gates.forEach((g) => g.open());
  await Promise.all(tasks);
  expect(peak).toBe(3);
});

it('keeps a running task in its slot when the signal aborts, and drops queued tasks unrun', async () => {
  const limiter = new AttemptLimiter(1);
  const abort = new AbortController();
  const hold = gate();
  const ran: string[] = [];
  const running = limiter.run(async () => {
    ran.push('running');
    await hold.opened;
    return 'finished';
  }, abort.signal);
  const queued = limiter.run(async () => void ran.push('queued'), abort.signal);
  abort.abort();
  // The running task still holds the only slot: nothing else can start until it ends.
  expect(limiter.active).toBe(1);
  hold.open();
  await expect(running).resolves.toBe('finished');
  await expect(queued).rejects.toThrow();
  expect(ran).toEqual(['running']);
});
