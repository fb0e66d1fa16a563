import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessAlive, isProcessGroupAlive } from '../../src/shared/process-group.js';
import { MAX_HELPER_LOSSES } from '../../src/worker/lost-attempt.js';
import { childrenOf } from '../helpers/processes.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const NODES = ['a', 'b', 'c'];

/**
 * A node that logs each attempt's start (with its pid) and waits for `go`. Each attempt takes a
 * lock on a file of its own node at once and holds it for as long as any process of the attempt
 * lives (its `sleep`s inherit the descriptor): an attempt that finds it taken logs `overlap`,
 * since another attempt of the same node is still running.
 */
function waitingNode(id: string, dir: string): string {
  return `  - id: ${id}
    bash: |
      exec 9>>'${dir}/lock-${id}'
      flock -n 9 || echo "overlap ${id}" >> '${dir}/attempts.log'
      echo "start ${id} $$" >> '${dir}/attempts.log'
      while [ ! -e '${dir}/go' ]; do sleep 0.05; done
      echo "end ${id} $$" >> '${dir}/attempts.log'
      echo done-${id}
`;
}

async function logLines(dir: string): Promise<string[]> {
  return (await readFile(join(dir, 'attempts.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

function startsOf(lines: readonly string[], id: string): number[] {
  return lines.filter((l) => l.startsWith(`start ${id} `)).map((l) => Number(l.split(' ')[2]));
}

/** The parent of a process and its command name (Linux: from /proc). */
async function parentOf(pid: number): Promise<{ pid: number; comm: string }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'latin1');
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const parentStat = await readFile(`/proc/${ppid}/stat`, 'latin1');
  return { pid: ppid, comm: parentStat.slice(parentStat.indexOf('(') + 1, parentStat.lastIndexOf(')')) };
}

it('a kill -9 of the spawn helper interrupts the nodes in flight: they run again, once each, and the run completes', async () => {
  const server = await startServer(home);
  const dir = home.home;
  await writeHomeWorkflow(home, 'helper-kill', `name: helper-kill
description: three nodes in flight when the spawn helper dies
nodes:
${NODES.map((id) => waitingNode(id, dir)).join('')}  - id: after
    depends_on: [${NODES.join(', ')}]
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'helper-kill');
  const first = await waitFor(async () => {
    const lines = await logLines(dir);
    return NODES.every((id) => startsOf(lines, id).length === 1) ? lines : undefined;
  }, { what: 'the three nodes to be running' });

  // The helper is the parent of every node's process.
  const helper = await parentOf(startsOf(first, 'a')[0]!);
  expect(helper.comm).toBe('perl');
  process.kill(helper.pid, 'SIGKILL');

  // Each node runs again while the run goes on; only then may the attempts finish.
  const second = await waitFor(async () => {
    const lines = await logLines(dir);
    return NODES.every((id) => startsOf(lines, id).length === 2) ? lines : undefined;
  }, { what: 'each node to run again after the kill', timeoutMs: 20_000 }).catch(async (err: Error) => {
    throw new Error(`${err.message}\nrun: ${JSON.stringify((await getRun(server.url, runId)).run.status)}`);
  });
  await writeFile(join(dir, 'go'), '');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end' });
  expect(run.status).toBe('completed');

  const lines = await logLines(dir);
  expect(lines.filter((l) => l.startsWith('overlap'))).toEqual([]);
  for (const id of NODES) {
    const [killed, again] = startsOf(second, id);
    // Only the second attempt reached its end; the first was killed with its group.
    expect(lines.filter((l) => l.startsWith(`end ${id} `))).toEqual([`end ${id} ${again}`]);
    expect(killed).not.toBe(again);

    const rows = events.filter((e) => e.step_name === id);
    expect(rows.map((e) => e.event_type)).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
    const failed = rows[1]!;
    expect(failed.data.interrupted).toBe(true);
    expect(failed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'transient' });
    expect(failed.data.error).toMatch(/^Attempt interrupted: its spawn helper \(perl, pid \d+\) was killed by SIGKILL while it ran; .*the node runs again$/);
    // One invocation, two attempts.
    const [startedFirst, startedAgain] = [rows[0]!, rows[2]!].map((e) => e.data.execution);
    expect(startedAgain.invocation.id).toBe(startedFirst.invocation.id);
    expect(startedAgain.attempt.id).not.toBe(startedFirst.attempt.id);
    expect(rows[3]!.data.node_output).toBe(`done-${id}`);
    // Nothing of either attempt is left running.
    for (const started of [rows[0]!, rows[2]!]) expect(isProcessGroupAlive(started.data.pid as number)).toBe(false);
  }
  expect(events.filter((e) => e.step_name === 'after' && e.event_type === 'node_completed')).toHaveLength(1);

  // A new helper took the dead one's place.
  expect(isProcessAlive(helper.pid)).toBe(false);
  const helpers = (await childrenOf(await server.pid('supervisor'))).filter((c) => c.comm === 'perl');
  expect(helpers.length).toBeGreaterThan(0);
  expect(helpers.map((h) => h.pid)).not.toContain(helper.pid);
  expect(existsSync(join(dir, 'go'))).toBe(true);
});

it('a node that kills its spawn helper each time is run a bounded number of times, then fails with the reason', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'helper-killer', `name: helper-killer
description: a node that kills the spawn helper that started it
nodes:
  - id: killer
    bash: "kill -9 $PPID; sleep 30"
  - id: after
    depends_on: [killer]
    trigger_rule: all_done
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'helper-killer');
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end instead of running the node for ever' });

  const killer = events.filter((e) => e.step_name === 'killer');
  expect(killer.map((e) => e.event_type)).toEqual(Array.from({ length: MAX_HELPER_LOSSES }, () => ['node_started', 'node_failed']).flat());
  // Interrupted each time but the last, which is final.
  expect(killer.filter((e) => e.event_type === 'node_failed').map((e) => e.data.interrupted === true)).toEqual(
    Array.from({ length: MAX_HELPER_LOSSES }, (_, i) => i < MAX_HELPER_LOSSES - 1),
  );
  const last = killer.at(-1)!;
  expect(last.data.execution.lifecycle).toMatchObject({ failureKind: 'fatal', retryable: false });
  expect(last.data.error).toMatch(new RegExp(`running each of the last ${MAX_HELPER_LOSSES} times its spawn helper died.*not run again`));
  for (const started of killer.filter((e) => e.event_type === 'node_started')) {
    expect(isProcessGroupAlive(started.data.pid as number)).toBe(false);
  }
  // The run goes on past the node, and later nodes still start (the helper is started again).
  expect(events.some((e) => e.step_name === 'after' && e.event_type === 'node_completed')).toBe(true);
  expect(run.status).toBe('failed');
});

it("an attempt lost with the spawn helper does not use up the node's retries", async () => {
  const server = await startServer(home);
  const dir = home.home;
  // Attempt 1 waits (and is lost with the helper), attempt 2 fails, attempt 3 succeeds: with
  // two attempts allowed, only a lost attempt that does not count lets the retry happen.
  await writeHomeWorkflow(home, 'lost-then-retry', `name: lost-then-retry
description: a node lost once, then failing once, with one retry allowed
nodes:
  - id: flaky
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
    bash: |
      echo "start flaky $$" >> '${dir}/attempts.log'
      n=$(grep -c '^start flaky ' '${dir}/attempts.log')
      if [ "$n" = 1 ]; then while :; do sleep 0.05; done; fi
      if [ "$n" = 2 ]; then exit 1; fi
      echo ok
`);
  const { runId } = await startRun(server.url, 'lost-then-retry');
  const [first] = await waitFor(async () => {
    const starts = startsOf(await logLines(dir), 'flaky');
    return starts.length === 1 ? starts : undefined;
  }, { what: 'the first attempt to run' });
  process.kill((await parentOf(first!)).pid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end' });
  const rows = events.filter((e) => e.step_name === 'flaky');
  expect(rows.map((e) => (e.event_type === 'node_failed' ? `failed:${e.data.execution.lifecycle.failureKind}${e.data.interrupted ? ':interrupted' : ''}` : e.event_type))).toEqual([
    'node_started', 'failed:transient:interrupted', 'node_started', 'failed:exec_failed', 'node_started', 'node_completed',
  ]);
  expect(run.status).toBe('completed');
});
