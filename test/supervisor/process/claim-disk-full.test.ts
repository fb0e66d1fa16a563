import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunRow } from '../../helpers/supervisor.js';
import { integrityOf, mountSmallDisk, smallDisksAvailable } from '../../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { capturingLogger, startTimedSupervisor, type LogLine } from './timed-supervisor.js';

/**
 * The claim loop on a real full disk (a tmpfs holding CAIRN_HOME, mounted as root). A claim the
 * disk refuses still touches the database files, so the change watch woke the loop at once and
 * it spun: ~1,700 `supervisor.claim_failed` lines a second at 99 % CPU. It must back off
 * (doubling to a cap) and log once per interval, counting the failures it did not log.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const HOUR = 3_600_000;

describe.skipIf(!smallDisksAvailable)('the claim loop on a full disk', () => {
  it('backs off claims the disk refuses, logs them once per interval with the rest counted, and claims the job once space returns', async () => {
    const disk = mountSmallDisk(home, home.home, 8);
    let offsetMs = 0;
    const clock = () => Date.now() + offsetMs;
    const seed = home.openStore({ clock });
    // A run a supervisor that is gone let sleep: its wake-up job is due in an hour (store clock).
    const run = await createRunRow(seed, 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: echo woke\n');
    await seed.acquireRun({ runId: run.id, ownerId: 'sup-gone', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    expect(await seed.sleepRun({ runId: run.id, ownerId: 'sup-gone', wakeAt: new Date(clock() + HOUR).toISOString() })).toBe(true);

    const { log, lines } = capturingLogger();
    const policy = { firstMs: 10, maxMs: 160, logEveryMs: 100 };
    await startTimedSupervisor(home, { id: 'sup-live', log, clock, timing: { storeFaults: policy } });
    // Its start job is claimed and ignored (the run is running); nothing else is due yet.
    await waitFor(async () => (await seed.listRunJobs(run.id)).find((j) => j.kind === 'start_run')?.status === 'done', {
      what: 'the start job to be handled',
    });
    await disk.fill({ database: home.paths.database });
    // The wake-up is due now: every claim of it meets the full disk.
    offsetMs = 2 * HOUR;

    const failed = () => lines.filter((l) => l.msg === 'supervisor.claim_failed');
    const capped = await waitFor(() => failed().find((l) => l.retryInMs === policy.maxMs), {
      what: 'the claim back-off to reach its cap',
    });
    // The delay doubled from the first to the cap; it reaches it at the 5th failure (10 · 2⁴),
    // and is logged then or at the next one, whatever the machine's speed. A spinning loop
    // would have failed thousands of times by now.
    expect(capped.failures).toBeGreaterThanOrEqual(5);
    expect(capped.failures).toBeLessThanOrEqual(6);
    expect((capped.err as { message: string }).message).toMatch(/^Disk full: Cairn could not claim a job/);
    const logged = failed();
    const delays = logged.map((l) => l.retryInMs as number);
    expect(delays[0]).toBe(policy.firstMs);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    // Every failure is accounted for: each line stands for itself and the ones it suppressed.
    expectEveryFailureCounted(logged);

    await disk.free();
    expect((await waitForEnd(seed, run.id)).status).toBe('completed');
    const recovered = lines.find((l) => l.msg === 'supervisor.claim_recovered');
    expect(recovered?.failures).toBeGreaterThanOrEqual(capped.failures as number);
    expect(integrityOf(home.paths.database)).toBe('ok');
  });
});

function expectEveryFailureCounted(logged: LogLine[]): void {
  let counted = 0;
  for (const line of logged) {
    counted += 1 + (line.suppressed as number);
    expect(line.failures).toBe(counted);
  }
}

async function waitForEnd(store: ReturnType<TempHome['openStore']>, runId: string) {
  return waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: 'the woken run to end' });
}
