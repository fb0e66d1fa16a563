import { describe, expect, it } from 'vitest';
import { failedAttempt, holdsClaimedJob, mayFinishJob } from '../../../src/store/rules/job-leases.js';

describe('a job’s lease', () => {
  it('lets only the holder finish the job, renew its lease or record a failed attempt at it', () => {
    const claimed = { status: 'claimed' as const, lease_owner: 'sup-a' };
    expect(mayFinishJob(claimed, 'sup-a')).toBe(true);
    expect(mayFinishJob(claimed, 'sup-b')).toBe(false);
    expect(mayFinishJob(undefined, 'sup-a')).toBe(false);
    expect(holdsClaimedJob(claimed, 'sup-a')).toBe(true);
    expect(holdsClaimedJob(claimed, 'sup-b')).toBe(false);
    // A job put back in the queue (its holder gone) is nobody's to renew.
    expect(holdsClaimedJob({ status: 'queued', lease_owner: null }, 'sup-a')).toBe(false);
  });

  it('keeps a failed job with its holder until the retry, and gives the claim back when the failure was not the job’s', () => {
    const at = '2026-01-01T12:00:05.000Z';
    expect(failedAttempt({ attempts: 2 }, 'boom', at, true)).toEqual({ last_error: 'boom', lease_expires_at: at, attempts: 2 });
    expect(failedAttempt({ attempts: 2 }, 'disk full', at, false)).toEqual({ last_error: 'disk full', lease_expires_at: at, attempts: 1 });
  });
});
