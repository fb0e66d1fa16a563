import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fenceVerdict, renewDeadlineMs } from '../../../src/supervisor/process/renew-deadline.js';
import { SelfFence } from '../../../src/supervisor/process/self-fence.js';

const defaults = { leaseMs: 15_000, heartbeatStaleMs: 10_000, killGraceMs: 3_000, heartbeatMs: 1_000 };

describe('renewDeadlineMs', () => {
  it('counts from the earlier of the lease and a stale heartbeat, less the kill grace and the margin', () => {
    // The heartbeat goes stale (10 s) before the lease runs out (15 s): 10 - 3 - 1.
    expect(renewDeadlineMs(defaults)).toBe(6_000);
    // A lease shorter than the heartbeat's staleness is what other hosts go by.
    expect(renewDeadlineMs({ ...defaults, leaseMs: 8_000 })).toBe(4_000);
    expect(renewDeadlineMs({ ...defaults, leaseMs: 8_000, marginMs: 500 })).toBe(4_500);
  });

  it('refuses a lease that leaves no room for two renewals, naming the least lease to set', () => {
    expect(renewDeadlineMs({ ...defaults, leaseMs: 6_000 })).toBe(2_000);
    expect(() => renewDeadlineMs({ ...defaults, leaseMs: 5_999 })).toThrow(/CAIRN_RUN_LEASE_MS=5999 is too short.*at least 6000/);
    expect(() => renewDeadlineMs({ ...defaults, leaseMs: 3_000 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('fenceVerdict', () => {
  it('fences only once the time since the last renewal passes the deadline', () => {
    expect(fenceVerdict({ now: 10_000, lastRenewedAt: 4_000, deadlineMs: 6_000 })).toBe('renewed');
    expect(fenceVerdict({ now: 10_001, lastRenewedAt: 4_000, deadlineMs: 6_000 })).toBe('fence');
  });
});

describe('SelfFence', () => {
  it('fences once past the deadline, and is lifted by a renewal sent after the fence once the fence is complete', async () => {
    let now = 0;
    let fences = 0;
    let finishFence!: () => void;
    const fence = new SelfFence({
      deadlineMs: 6_000,
      log: pino({ level: 'silent' }),
      now: () => now,
      fence: () => {
        fences++;
        return new Promise<void>((resolve) => (finishFence = resolve));
      },
    });
    fence.renewed(fence.renewalSent()); // at 0
    now = 6_000;
    fence.check();
    expect(fence.fenced).toBe(false);
    // A renewal sent at 5 s that is answered only now is not a renewal made now.
    now = 6_001;
    fence.check();
    expect(fence.fenced).toBe(true);
    fence.check();
    expect(fences).toBe(1);
    // The database answers again while the nodes are still being ended: still fenced.
    now = 7_000;
    fence.renewed(fence.renewalSent());
    expect(fence.fenced).toBe(true);
    finishFence();
    await new Promise((resolve) => setImmediate(resolve));
    // A renewal sent before the fence began (stuck, answered late) does not lift it.
    fence.renewed(5_000);
    expect(fence.fenced).toBe(true);
    now = 8_000;
    fence.renewed(fence.renewalSent());
    expect(fence.fenced).toBe(false);
    // Renewed at 8 s: the next fence is due after 14 s.
    now = 14_000;
    fence.check();
    expect(fence.fenced).toBe(false);
    now = 14_001;
    fence.check();
    expect(fences).toBe(2);
  });
});
