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

it('a node that kills its supervisor is run three times at most, then fails with the reason, and the run ends', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'suicidal', `name: suicidal
description: a node that kills the supervisor running it
nodes:
  - id: killer
    bash: "kill -9 $(cat '${home.paths.supervisorPid}'); sleep 30"
  - id: after
    depends_on: [killer]
    trigger_rule: all_done
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'suicidal');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to end instead of crash-looping', timeoutMs: 55_000 });

  const killer = events.filter((e) => e.step_name === 'killer');
  expect(killer.filter((e) => e.event_type === 'node_started')).toHaveLength(3);
  const last = killer.at(-1)!;
  expect(last.event_type).toBe('node_failed');
  expect(last.data.error).toMatch(/running each of the last 3 times its supervisor died.*not run again/);
  // The run goes on past the node: its all_done dependant runs, and the server is healthy.
  expect(events.some((e) => e.step_name === 'after' && e.event_type === 'node_completed')).toBe(true);
  expect(run.status).toBe('failed');
  const health = (await (await fetch(`${server.url}/api/health`)).json()) as Record<string, any>;
  expect(health.concurrency.supervisor.up).toBe(true);
});
