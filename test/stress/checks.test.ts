import { describe, expect, it } from 'vitest';
import { runChecks, type CheckInput } from '../../src/stress/checks.js';
import type { RecordedEvent, RecordedRun } from '../../src/stress/history.js';
import type { KillRecord } from '../../src/stress/kill-record.js';

/**
 * The checks of `cairn stress` fail when their invariant is broken: a recorded history is built
 * by hand, first one that holds, then the same with one fault put in.
 */

let seq = 0;
function event(type: string, path: string | null, at: number, extra: Partial<RecordedEvent> = {}): RecordedEvent {
  return { seq: ++seq, type, path, attemptId: undefined, invocationId: 'inv', interrupted: false, error: undefined, at, ...extra };
}

/** A completed run of nodes `a` then `b`; `a`'s first attempt was cut short by a kill at t=150. */
function healthyRun(): RecordedRun {
  seq = 0;
  return {
    id: 'run-1', workflow: 'wf', status: 'completed', parentId: null, error: null,
    events: [
      event('workflow_started', null, 100),
      event('node_started', 'a', 110, { attemptId: 'a1' }),
      event('node_failed', 'a', 200, { attemptId: 'a1', interrupted: true }),
      event('node_started', 'a', 210, { attemptId: 'a2' }),
      event('node_completed', 'a', 300, { attemptId: 'a2' }),
      event('node_started', 'b', 310, { attemptId: 'b1' }),
      event('node_completed', 'b', 400, { attemptId: 'b1' }),
      event('workflow_completed', null, 410),
    ],
  };
}

const supervisorKill: KillRecord = { index: 0, kind: 'supervisor', pid: 42, atMs: 150, effectUntilMs: 150, landed: true, recoveredMs: 30 };

function input(run: RecordedRun, overrides: Partial<CheckInput> = {}): CheckInput {
  return {
    runs: [run], runsAsked: 1, startedRunIds: [run.id], expectedPaths: { wf: ['a', 'b'] }, kills: [supervisorKill],
    killsAsked: 1, resumes: [], wholeLog: true, orphans: [], serverCrashes: 0, ...overrides,
  };
}

function failed(result: ReturnType<typeof runChecks>): string[] {
  return result.checks.filter((c) => c.ok === false).map((c) => c.id);
}

describe('stress checks', () => {
  it('all hold on a history where a kill interrupted one attempt that then ran again', () => {
    const result = runChecks(input(healthyRun()));
    expect(failed(result)).toEqual([]);
    expect(result.counts).toMatchObject({ attempts: 3, reruns: 1, inFlightAtKills: 1, interruptedAttempts: 1, nodesCompleted: 2, killsLanded: 1 });
  });

  it('a success recorded twice fails success-once', () => {
    const run = healthyRun();
    run.events.splice(7, 0, { ...run.events[6]!, seq: 7.5 });
    const result = runChecks(input(run, { wholeLog: false }));
    expect(failed(result)).toEqual(['success-once']);
    expect(result.checks.find((c) => c.id === 'success-once')!.detail).toContain('b: completed 2 times');
  });

  it('a hole in the log fails events-gapless', () => {
    const run = healthyRun();
    run.events.splice(3, 1);
    const result = runChecks(input(run));
    expect(failed(result)).toEqual(['events-gapless']);
    expect(result.checks.find((c) => c.id === 'events-gapless')!.detail).toContain('3 then 5');
  });

  it('a re-run with no kill during the attempt before fails reruns-explained', () => {
    const result = runChecks(input(healthyRun(), { kills: [{ ...supervisorKill, atMs: 205, effectUntilMs: 205 }] }));
    expect(failed(result)).toEqual(['reruns-explained']);
  });

  it('an API kill explains no re-run', () => {
    const result = runChecks(input(healthyRun(), { kills: [{ ...supervisorKill, kind: 'api' }] }));
    expect(failed(result)).toEqual(['reruns-explained']);
  });

  it('an attempt failed by a kill instead of interrupted, and the resume it needed, fail kills-interrupt', () => {
    const run = healthyRun();
    run.events[2] = { ...run.events[2]!, interrupted: false, error: 'spawn helper exited (code null, signal SIGKILL)' };
    const result = runChecks(input(run, { resumes: [{ runId: 'run-1', error: "node(s) 'a' failed" }] }));
    expect(failed(result)).toEqual(['kills-interrupt']);
    expect(result.checks.find((c) => c.id === 'kills-interrupt')!.detail).toContain('signal SIGKILL');
  });

  it('a run not completed, a node never succeeded, an orphan and a kill that missed each fail their check', () => {
    const run = healthyRun();
    run.status = 'failed';
    const result = runChecks(input(run, {
      expectedPaths: { wf: ['a', 'b', 'c'] },
      orphans: [{ pid: 7, comm: 'sleep', where: 'environment' }],
      kills: [supervisorKill, { index: 1, kind: 'helper', pid: 0, atMs: 500, effectUntilMs: 500, landed: false, note: 'no helper process was alive to kill' }],
      killsAsked: 2,
    }));
    expect(failed(result)).toEqual(['runs-completed', 'no-orphans', 'kills-landed']);
    expect(failed(runChecks(input(healthyRun(), { expectedPaths: { wf: ['a', 'b', 'c'] } })))).toEqual(['success-once']);
    expect(failed(runChecks(input(healthyRun(), { serverCrashes: 1 })))).toEqual(['no-crash']);
  });

  it('with --disk-full: fails when the server never said so or never took writes again, and on a damaged database', () => {
    const full = { index: 0, atMs: 120, walTruncated: true, toldFullMs: 40, heldMs: 1500, recoveredMs: 60, said: 'Disk full: …' };
    expect(failed(runChecks(input(healthyRun(), { diskFulls: [full], databaseIntegrity: 'ok' })))).toEqual([]);
    const silent = runChecks(input(healthyRun(), { diskFulls: [{ ...full, toldFullMs: null, walTruncated: false }] }));
    expect(failed(silent)).toEqual(['disk-full-told']);
    expect(silent.checks.find((c) => c.id === 'disk-full-told')!.detail).toContain('the WAL could not be truncated first');
    expect(failed(runChecks(input(healthyRun(), { diskFulls: [{ ...full, recoveredMs: null }] })))).toEqual(['disk-full-told']);
    expect(failed(runChecks(input(healthyRun(), { diskFulls: [] })))).toEqual(['disk-full-told']);
    expect(failed(runChecks(input(healthyRun(), { databaseIntegrity: '*** in database main ***\nPage 7 is never used' })))).toEqual(['database-sound']);
    // Without --disk-full, or with --url, those checks are not made.
    const plain = runChecks(input(healthyRun()));
    expect(plain.checks.filter((c) => c.ok === null).map((c) => c.id)).toEqual(['disk-full-told', 'database-sound']);
  });

  it('explains a re-run of an attempt that started on a spawn helper just killed (its interruption names the pid), and no other', () => {
    seq = 0;
    const run: RecordedRun = {
      id: 'run-h', workflow: 'wf', status: 'completed', parentId: null, error: null,
      events: [
        event('workflow_started', null, 100),
        // Handed to helper 77 after its SIGKILL (at 150), before the supervisor noticed.
        event('node_started', 'a', 160, { attemptId: 'a1' }),
        event('node_failed', 'a', 200, { attemptId: 'a1', interrupted: true, error: 'Attempt interrupted: its spawn helper (perl, pid 77) was killed by SIGKILL while it ran' }),
        event('node_started', 'a', 210, { attemptId: 'a2' }),
        event('node_completed', 'a', 300, { attemptId: 'a2' }),
        event('node_started', 'b', 310, { attemptId: 'b1' }),
        event('node_completed', 'b', 400, { attemptId: 'b1' }),
        event('workflow_completed', null, 410),
      ],
    };
    const helperKill: KillRecord = { index: 0, kind: 'helper', pid: 77, atMs: 150, effectUntilMs: 150, landed: true, recoveredMs: 5 };
    expect(failed(runChecks(input(run, { kills: [helperKill] })))).toEqual([]);
    expect(failed(runChecks(input(run, { kills: [{ ...helperKill, pid: 78 }] })))).toEqual(['reruns-explained']);
  });

  it("explains a re-run that started after a launcher kill, while the supervisor was still stopping (the kill's effect)", () => {
    const late = { ...supervisorKill, kind: 'launcher' as const, atMs: 100, effectUntilMs: 115 };
    expect(failed(runChecks(input(healthyRun(), { kills: [late] })))).toEqual([]);
    expect(failed(runChecks(input(healthyRun(), { kills: [{ ...late, effectUntilMs: 100 }] })))).toEqual(['reruns-explained']);
  });

  it('explains the re-run of a fan-out instance by a kill of a node inside it', () => {
    seq = 0;
    const run: RecordedRun = {
      id: 'run-2', workflow: 'fan', status: 'completed', parentId: null, error: null,
      events: [
        event('workflow_started', null, 100),
        event('node_started', 'each[0]/a', 110, { attemptId: 'i1' }),
        event('node_failed', 'each[0]/a', 200, { attemptId: 'i1', interrupted: true }),
        // The instance's own records are written once its nodes ended, after the kill.
        event('node_started', 'each[0]', 201, { attemptId: 'e1' }),
        event('node_failed', 'each[0]', 201, { attemptId: 'e1', interrupted: true }),
        event('node_started', 'each[0]/a', 300, { attemptId: 'i2' }),
        event('node_completed', 'each[0]/a', 310, { attemptId: 'i2' }),
        event('node_started', 'each[0]', 311, { attemptId: 'e2' }),
        event('node_completed', 'each[0]', 311, { attemptId: 'e2' }),
        event('workflow_completed', null, 320),
      ],
    };
    const result = runChecks(input(run, { expectedPaths: { fan: ['each[0]', 'each[0]/a'] } }));
    expect(failed(result)).toEqual([]);
    expect(result.counts.reruns).toBe(2);
  });

  it('skips the process check with --url (orphans not looked for)', () => {
    const result = runChecks(input(healthyRun(), { orphans: undefined }));
    expect(result.checks.find((c) => c.id === 'no-orphans')!.ok).toBeNull();
  });
});
