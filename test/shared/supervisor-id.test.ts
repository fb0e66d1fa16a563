import { describe, expect, it } from 'vitest';
import { hostOfSupervisorId, newSupervisorId, ranOnThisHost } from '../../src/shared/supervisor-id.js';

describe('a supervisor id names the host whose processes it ran', () => {
  it('reads the host back, hyphens and dots included', () => {
    expect(hostOfSupervisorId(newSupervisorId('build-box-2.example', 4242))).toBe('build-box-2.example');
    expect(hostOfSupervisorId('sup-a-1-0123abcd')).toBe('a');
    expect(hostOfSupervisorId('test-supervisor')).toBeUndefined();
  });

  it('lets a take-over signal only processes of its own host (an id of another form counts as here)', () => {
    expect(ranOnThisHost(newSupervisorId('host-a', 10), 'host-a')).toBe(true);
    // The same pid on host-b is another program, or none: never signalled from host-a.
    expect(ranOnThisHost(newSupervisorId('host-b', 10), 'host-a')).toBe(false);
    expect(ranOnThisHost(null, 'host-a')).toBe(true);
    expect(ranOnThisHost('sup-test', 'host-a')).toBe(true);
  });
});
