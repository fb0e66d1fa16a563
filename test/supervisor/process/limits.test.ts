import { expect, it } from 'vitest';
import { GLOBAL_KEY, GLOBAL_SLOT, globalSlots } from '../../../src/supervisor/run/engine-slots.js';

/** A promise the test resolves by hand: a task that holds its slot until released. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

it('never runs more tasks at once than its limit', async () => {
  const limiter = globalSlots(3);
  let running = 0;
  let peak = 0;
  const gates = Array.from({ length: 10 }, gate);
  const tasks = gates.map((g) =>
    limiter.run(GLOBAL_SLOT, async () => {
      peak = Math.max(peak, ++running);
      await g.opened;
      running--;
    }),
  );
  // The first three take their slots at once; the others wait in line.
  expect(limiter.holders(GLOBAL_KEY)).toBe(3);
  expect(limiter.waiting(GLOBAL_KEY)).toBe(7);
  gates.forEach((g) => g.open());
  await Promise.all(tasks);
  expect(peak).toBe(3);
  expect(limiter.stats()).toEqual({ global: { active: 0, queued: 0, limit: 3 } });
});

it('keeps a running task in its slot when the signal aborts, and drops queued tasks unrun', async () => {
  const limiter = globalSlots(1);
  const abort = new AbortController();
  const hold = gate();
  const ran: string[] = [];
  const running = limiter.run(GLOBAL_SLOT, async () => {
    ran.push('running');
    await hold.opened;
    return 'finished';
  }, abort.signal);
  const queued = limiter.run(GLOBAL_SLOT, async () => void ran.push('queued'), abort.signal);
  abort.abort();
  // The running task still holds the only slot: nothing else can start until it ends.
  expect(limiter.holders(GLOBAL_KEY)).toBe(1);
  hold.open();
  await expect(running).resolves.toEqual({ dropped: false, value: 'finished' });
  await expect(queued).resolves.toEqual({ dropped: true });
  expect(ran).toEqual(['running']);
});
