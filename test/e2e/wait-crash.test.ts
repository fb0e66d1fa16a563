import { afterEach, beforeEach, expect, it } from 'vitest';
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

it('a wait survives kill -9 of its supervisor: the restarted supervisor wakes it at the recorded moment', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'nap', `name: nap
description: a wait across a crash
nodes:
  - id: hold
    wait: { duration_ms: 3000 }
  - id: after
    depends_on: [hold]
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'nap');
  await waitFor(async () => (await getRun(server.url, runId)).events.some((e) => e.event_type === 'node_suspended'), { what: 'the wait to begin' });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to finish after the crash', timeoutMs: 45_000 });
  expect(run.status).toBe('completed');
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  const suspended = events.find((e) => e.step_name === 'hold' && e.event_type === 'node_suspended')!;
  const woke = events.find((e) => e.step_name === 'hold' && e.event_type === 'node_completed')!;
  expect(Date.parse(woke.created_at)).toBeGreaterThanOrEqual(Date.parse(suspended.data.wake_at));
  expect(woke.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
  expect(events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toEqual(['hold', 'after']);
});
