import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
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
