import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../src/shared/process-group.js';
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

const stubborn = `name: stubborn
description: three nodes whose processes start background children, and one that waits for them
nodes:
  - id: one
    bash: "sleep 60 & sleep 60 & wait"
  - id: two
    bash: "sleep 60 & wait"
  - id: three
    bash: "trap '' TERM; sleep 60"
  - id: after
    depends_on: [one, two, three]
    bash: "echo never"
`;

it('cancel kills every process of the running nodes, then records the run cancelled', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'stubborn', stubborn);
  const { runId } = await startRun(server.url, 'stubborn');

  const started = await waitFor(async () => {
    const { events } = await getRun(server.url, runId);
    const starts = events.filter((e) => e.event_type === 'node_started');
    return starts.length === 3 ? starts : undefined;
  }, { what: 'three running nodes' });
  const groups = started.map((e) => e.data.pid as number);
  expect(groups.every((pid) => Number.isInteger(pid))).toBe(true);
  // node_started is committed as soon as the child is forked, and the child makes its process
  // group (setsid) right after the fork, so a group can be a moment behind its event: wait for
  // the three groups rather than race them.
  await waitFor(() => groups.every((pid) => isProcessGroupAlive(pid)), { what: 'the three process groups' });

  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
  expect(res.status).toBe(200);

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.run.status === 'cancelled' ? detail : undefined;
  }, { what: 'the run to be cancelled' });
  expect(run.status).toBe('cancelled');
  // Every process of every group is gone — including children that ignore SIGTERM.
  expect(groups.filter((pid) => isProcessGroupAlive(pid))).toEqual([]);

  // Each interrupted node is recorded as cancelled before the run is; the dependant never ran.
  const types = events.map((e) => `${e.event_type}:${e.step_name ?? ''}`);
  const cancelledAt = types.indexOf('workflow_cancelled:');
  for (const node of ['one', 'two', 'three']) {
    const failed = events.findIndex((e) => e.event_type === 'node_failed' && e.step_name === node);
    expect(failed).toBeGreaterThanOrEqual(0);
    expect(failed).toBeLessThan(cancelledAt);
    expect(events[failed]!.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'cancelled' });
  }
  expect(types.some((t) => t.endsWith(':after'))).toBe(false);
});

it('refuses to cancel a run that has finished', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'quick', 'name: quick\ndescription: one node\nnodes:\n  - id: a\n    bash: echo hi\n');
  const { runId } = await startRun(server.url, 'quick');
  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'completed', { what: 'completion' });
  const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: "Cannot cancel workflow in 'completed' status" });
});
