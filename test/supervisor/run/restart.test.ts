import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { summariseNodes } from '../../../src/cli/node-summary.js';
import { nodeTimeline, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { waitForRunFile } from '../../helpers/run-files.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a node waiting out its retry delay when the supervisor stops runs again after the rest of the delay, as its next attempt', async () => {
  const first = await startSupervisor(home, { id: 'sup-first' });
  const run = await first.createRun(`name: retry-across-restart
description: fails once, then succeeds
nodes:
  - id: flaky
    bash: "if [ -e .tried ]; then echo second; else touch .tried; exit 3; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_failed'), { what: 'the first attempt to fail' });
  await first.stop({ drain: false });
  expect((await first.store.getRun(run.id))!.status).toBe('running');

  const second = await startSupervisor(home, { id: 'sup-second' });
  expect((await second.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await second.events(run.id);
  expect(nodeTimeline(events)).toEqual(['node_started:flaky', 'node_failed:flaky', 'node_started:flaky', 'node_completed:flaky']);
  const flaky = events.filter((e) => e.step_name === 'flaky').map((e) => e.data.execution);
  // A new attempt of the same invocation, not a fresh start of the node.
  expect(new Set(flaky.map((r) => r.invocation.id)).size).toBe(1);
  const [a1, a2, b1, b2] = flaky.map((r) => r.attempt.id);
  expect([a1 === a2, b1 === b2, a1 !== b1]).toEqual([true, true, true]);
  // The second attempt waited for what was left of the delay, measured from the failure.
  const failedAt = Date.parse(events.find((e) => e.event_type === 'node_failed')!.created_at);
  const restartedAt = Date.parse(events.filter((e) => e.event_type === 'node_started')[1]!.created_at);
  expect(restartedAt - failedAt).toBeGreaterThanOrEqual(1000);
});

it('an output longer than the 32 KiB preview reaches its dependant whole after a take-over', async () => {
  const first = await startSupervisor(home, { id: 'sup-first' });
  const run = await first.createRun(`name: long-output
description: a long output, a node that outlives the first supervisor, and a reader
nodes:
  - id: big
    bash: "head -c 100000 /dev/zero | tr '\\\\0' x"
  - id: gate
    bash: "if [ -e .again ]; then echo open; else touch .again; sleep 30; fi"
  - id: reader
    depends_on: [big, gate]
    bash: "printf %s \\"$big.output\\" | wc -c"
`);
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_completed' && e.step_name === 'big'), {
    what: 'big to complete',
  });
  await waitForRunFile(home, run, '.again');
  await first.stop({ drain: false });

  const second = await startSupervisor(home, { id: 'sup-second' });
  expect((await second.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await second.events(run.id);
  const big = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'big')!;
  const persisted = big.data.execution.output.persisted;
  expect(persisted).toMatchObject({ truncated: true, originalBytes: 100000 });
  expect((await readFile(persisted.spillPath, 'utf8')).length).toBe(100000);
  const reader = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'reader')!;
  expect(reader.data.node_output.trim()).toBe('100000');
});

it('a node that waited for a global slot when the supervisor stopped shows its new place after the restart, never the old one', async () => {
  const flag = join(home.home, 'release-all');
  const hold = (name: string) => `name: ${name}\ndescription: one node that waits for a file\nnodes:\n  - id: hold\n    bash: 'while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done'\n`;
  const first = await startSupervisor(home, { id: 'sup-first', limit: 1 });
  // One run holds the only slot; the two others wait in the global line, at places 1 and 2.
  const runs = [await first.createRun(hold('r0'), { message: flag })];
  await waitFor(async () => (await first.events(runs[0]!.id)).some((e) => e.event_type === 'node_started'), { what: 'r0 to start' });
  for (const [i, position] of [[1, 1], [2, 2]] as const) {
    runs.push(await first.createRun(hold(`r${i}`), { message: flag }));
    await waitFor(async () => (await first.events(runs[i]!.id)).some((e) => e.event_type === 'global_queued' && e.data.position === position), {
      what: `r${i} to wait at place ${position}`,
    });
  }
  await first.stop({ drain: false });
  const stoppedAt = await first.store.lastEventSeq();

  // The next supervisor has two slots: two of the three nodes run, the third waits first in
  // line. Whichever it is, it says place 1, from an event of this supervisor.
  const second = await startSupervisor(home, { id: 'sup-second', limit: 2 });
  const shown = async () => (await Promise.all(runs.map(async (run) => summariseNodes(await second.events(run.id))[0]))).map((n) => n?.reason ?? n?.status);
  const placed = await waitFor(async () => {
    const now = await shown();
    return now.filter((s) => s === 'running').length === 2 && now.some((s) => s?.startsWith('queued')) ? now : undefined;
  }, { what: 'two nodes to run and one to wait after the restart' });
  expect(placed.filter((s) => s !== 'running')).toEqual(['queued (global limit, position 1)']);
  const waiting = runs[placed.findIndex((s) => s !== 'running')]!;
  expect((await second.events(waiting.id)).filter((e) => e.event_type === 'global_queued').at(-1)!.seq).toBeGreaterThan(stoppedAt);

  await writeFile(flag, '');
  for (const run of runs) expect((await second.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(await shown()).toEqual(['completed', 'completed', 'completed']);
});
