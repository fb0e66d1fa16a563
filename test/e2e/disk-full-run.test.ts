import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { integrityOf, mountSmallDisk, smallDisksAvailable } from '../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Runs under `cairn serve` whose next step comes due while CAIRN_HOME's disk (a real 8 MB tmpfs,
 * mounted as root) is full: a `wait` whose end cannot be recorded, and a retry whose start
 * cannot be. Both used to fail their node, and so the run, for want of space. A run waits for
 * space instead: the wait ends as the same attempt, the retry starts as the attempt it was
 * going to be, and both runs complete once space returns.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const waits = `name: waits
description: a wait, then a node
nodes:
  - id: w
    wait: { duration_ms: 3000 }
  - id: after
    depends_on: [w]
    bash: echo after
`;

// Fails its first attempt (before the disk fills), then succeeds; the retry is due 3 s later.
const flaky = `name: flaky
description: a node that succeeds at its second attempt
nodes:
  - id: f
    bash: 'if [ -e tried ]; then echo ok; else touch tried; exit 1; fi'
    retry: { max_attempts: 2, delay_ms: 3000, on_error: all }
`;

type Events = Awaited<ReturnType<typeof getRun>>['events'];

async function eventsOf(server: RunningServer, runId: string): Promise<Events> {
  return (await getRun(server.url, runId)).events;
}

/** Whether the server logged a failure about `nodeId` caused by the full disk (however it handled it). */
function loggedDiskFull(server: RunningServer, nodeId: string): boolean {
  return server
    .output()
    .split('\n')
    .some((line) => line.includes(`"nodeId":"${nodeId}"`) && /disk (is )?full/i.test(line));
}

describe.skipIf(!smallDisksAvailable)('runs whose next step comes due on a full disk', () => {
  it('wait for space instead of failing: the wait ends as the same attempt, the retry starts, both runs complete', async () => {
    const disk = mountSmallDisk(home, home.home, 8);
    await writeHomeWorkflow(home, 'waits', waits);
    await writeHomeWorkflow(home, 'flaky', flaky);
    const server = await startServer(home);
    const waiting = await startRun(server.url, 'waits');
    const retrying = await startRun(server.url, 'flaky');
    await waitFor(async () => (await eventsOf(server, waiting.runId)).some((e) => e.step_name === 'w' && e.event_type === 'node_suspended'), {
      what: 'the wait to begin',
    });
    await waitFor(async () => (await eventsOf(server, retrying.runId)).some((e) => e.step_name === 'f' && e.event_type === 'node_failed'), {
      what: 'the first attempt of f to fail',
    });
    await disk.fill({ database: home.paths.database });

    // Both timers come due: the wait's end and the retry's start each meet the full disk.
    for (const node of ['w', 'f']) {
      await waitFor(() => loggedDiskFull(server, node), { what: `${node}'s next step to meet the full disk` });
    }
    await disk.free();

    for (const { runId } of [waiting, retrying]) {
      const ended = await waitFor(async () => {
        const { run } = await getRun(server.url, runId);
        return ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
      }, { what: `run ${runId} to end` });
      expect(ended.status, ended.error).toBe('completed');
    }
    const waitEvents = (await eventsOf(server, waiting.runId)).filter((e) => e.step_name === 'w').map((e) => e.event_type);
    expect(waitEvents).toEqual(['node_started', 'node_suspended', 'node_completed']);
    const retryEvents = (await eventsOf(server, retrying.runId)).filter((e) => e.step_name === 'f');
    expect(retryEvents.map((e) => e.event_type)).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
    // The attempt the full disk put off left no record: two attempts, each started and ended.
    const attemptIds = retryEvents.map((e) => e.data.execution.attempt.id as string);
    expect(new Set(attemptIds).size).toBe(2);
    expect(attemptIds[2]).toBe(attemptIds[3]);
    await server.stop();
    expect(integrityOf(home.paths.database)).toBe('ok');
  });
});
