import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Slots, type SlotHold } from '../../../src/supervisor/run/slots.js';

/**
 * The one slots primitive behind the global, per-run and per-provider limits, driven by random
 * sequences of requests (each over a set of keys), releases (some twice) and aborts, and checked
 * after each step against what a user relies on: never more holders of a key than its limit, no
 * request left waiting when it could take its slots (a lost wake-up), first come first served.
 */

const KEYS = ['global', 'run', 'codex'] as const;

type Command =
  | { type: 'request'; keys: string[] }
  | { type: 'release'; pick: number }
  | { type: 'abort'; pick: number };

const command = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant('request' as const), keys: fc.subarray([...KEYS], { minLength: 1 }) }), weight: 3 },
  { arbitrary: fc.record({ type: fc.constant('release' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant('abort' as const), pick: fc.nat() }), weight: 1 },
);

interface Request {
  keys: string[];
  abort: AbortController;
  state: 'waiting' | 'held' | 'released' | 'aborted';
  hold?: SlotHold;
}

/** Lets granted requests' promises settle (a grant is decided at once; its promise resolves a tick later). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('slots', () => {
  it('never has more holders than a limit, loses no wake-up, and releases once however often asked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ global: fc.integer({ min: 1, max: 4 }), run: fc.integer({ min: 1, max: 3 }), codex: fc.integer({ min: 1, max: 2 }) }),
        fc.array(command, { minLength: 1, maxLength: 60 }),
        async (limits, commands) => {
          const slots = new Slots({ limitOf: (key) => limits[key as keyof typeof limits] });
          const requests: Request[] = [];
          for (const cmd of commands) {
            if (cmd.type === 'request') {
              const request: Request = { keys: cmd.keys, abort: new AbortController(), state: 'waiting' };
              requests.push(request);
              void slots.acquire(cmd.keys, request.abort.signal).then((hold) => {
                if (!hold) return;
                request.state = 'held';
                request.hold = hold;
              });
            } else if (cmd.type === 'release') {
              // Any request that was granted, released already or not: a second release is a no-op.
              const granted = requests.filter((r) => r.hold);
              const request = granted[cmd.pick % Math.max(1, granted.length)];
              request?.hold!.release();
              if (request) request.state = 'released';
            } else {
              const waiting = requests.filter((r) => r.state === 'waiting');
              const request = waiting[cmd.pick % Math.max(1, waiting.length)];
              request?.abort.abort();
              if (request) request.state = 'aborted';
            }
            await settle();

            for (const key of KEYS) {
              const holding = requests.filter((r) => r.state === 'held' && r.keys.includes(key)).length;
              expect(slots.holders(key)).toBe(holding);
              expect(holding).toBeLessThanOrEqual(limits[key]);
              expect(slots.waiting(key)).toBe(requests.filter((r) => r.state === 'waiting' && r.keys.includes(key)).length);
            }
            // No lost wake-up: a waiting request with fewer waiting ahead of it on each of its keys
            // than that key has room would have been given its slots.
            const waiting = requests.filter((r) => r.state === 'waiting');
            for (const [i, request] of waiting.entries()) {
              const couldTake = request.keys.every((key) => {
                const ahead = waiting.slice(0, i).filter((r) => r.keys.includes(key)).length;
                return ahead < limits[key as keyof typeof limits] - slots.holders(key);
              });
              expect(couldTake).toBe(false);
            }
          }
        },
      ),
      { numRuns: 300, seed: 20261127 },
    );
  });

  it('serves requests for one key first come, first served, whatever the releases and aborts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(command, { minLength: 1, maxLength: 60 }), async (limit, commands) => {
        const slots = new Slots({ limitOf: () => limit });
        const requests: Request[] = [];
        const grantOrder: number[] = [];
        for (const cmd of commands) {
          if (cmd.type === 'request') {
            const request: Request = { keys: ['run'], abort: new AbortController(), state: 'waiting' };
            const index = requests.push(request) - 1;
            void slots.acquire(['run'], request.abort.signal).then((hold) => {
              if (!hold) return;
              request.state = 'held';
              request.hold = hold;
              grantOrder.push(index);
            });
          } else if (cmd.type === 'release') {
            const held = requests.filter((r) => r.state === 'held');
            const request = held[cmd.pick % Math.max(1, held.length)];
            request?.hold!.release();
            if (request) request.state = 'released';
          } else {
            const waiting = requests.filter((r) => r.state === 'waiting');
            const request = waiting[cmd.pick % Math.max(1, waiting.length)];
            request?.abort.abort();
            if (request) request.state = 'aborted';
          }
          await settle();
        }
        // Granted in the order asked (aborted requests simply drop out).
        expect(grantOrder).toEqual([...grantOrder].sort((a, b) => a - b));
      }),
      { numRuns: 300, seed: 20261128 },
    );
  });

  it('keeps a woken ticket its place: a newcomer does not take the slot it was woken for', () => {
    const slots = new Slots({ limitOf: () => 1 });
    const [first, second] = [{}, {}];
    const woken: string[] = [];
    const held = slots.tryAcquire(['codex'], {}, () => {});
    expect(held.acquired).toBe(true);
    expect(slots.tryAcquire(['codex'], first, () => woken.push('first'))).toEqual({ acquired: false, position: 1, newlyQueued: true });
    if (held.acquired) held.hold.release();
    expect(woken).toEqual(['first']);
    expect(slots.tryAcquire(['codex'], second, () => {})).toEqual({ acquired: false, position: 2, newlyQueued: true });
    expect(slots.tryAcquire(['codex'], first, () => {})).toMatchObject({ acquired: true });
    expect(slots.positionOf(second)).toBe(1);
  });

  it('drops every request waiting under a signal when it aborts, and serves those under another in order', async () => {
    const slots = new Slots({ limitOf: () => 1 });
    const run = new AbortController();
    const other = new AbortController();
    const first = (await slots.acquire(['global'], run.signal))!;
    const dropped = Array.from({ length: 50 }, () => slots.acquire(['global'], run.signal));
    const served = [slots.acquire(['global'], other.signal), slots.acquire(['global'], other.signal)];
    run.abort();
    expect(await Promise.all(dropped)).toEqual(Array(50).fill(undefined));
    // The running request keeps its slot; the line is now the other signal's two.
    expect(slots.holders('global')).toBe(1);
    expect(slots.waiting('global')).toBe(2);
    first.release();
    const next = (await served[0])!;
    next.release();
    (await served[1])!.release();
    expect(slots.stats()).toEqual({ global: { active: 0, queued: 0, limit: 1 } });
  });

  it('tells the scheduler when a freed slot is not taken by anyone in line', async () => {
    const slots = new Slots({ limitOf: () => 1 });
    let freed = 0;
    slots.onFree = () => freed++;
    const first = slots.tryAcquire(['run']);
    const waiting = slots.acquire(['run']);
    if (first.acquired) first.hold.release();
    // The waiting request took the slot: nothing was freed for the scheduler.
    expect(freed).toBe(0);
    (await waiting)!.release();
    expect(freed).toBe(1);
    expect(slots.free(['run'])).toBe(true);
  });
});
