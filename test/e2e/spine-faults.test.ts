import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { holdWriteLock } from '../helpers/write-lock.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

async function finished(url: string, runId: string) {
  return waitFor(async () => {
    const detail = await getRun(url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 45_000 });
}

// A spawn helper's death: test/e2e/spawn-helper-crash.test.ts (its nodes are interrupted and run again).

it("a node that ends while another process holds the database's write lock past the old 10 s busy timeout is recorded once the lock is released", async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'locked-end', `name: locked-end
description: a node whose end is written while the database is locked
nodes:
  - id: n
    bash: "while [ ! -e go ]; do sleep 0.05; done; echo done"
  - id: after
    depends_on: [n]
    bash: echo after
`);
  const { runId } = await startRun(server.url, 'locked-end');
  await waitFor(async () => (await getRun(server.url, runId)).events.some((e) => e.event_type === 'node_started'), {
    what: 'the node to start',
  });
  const lock = await holdWriteLock(home);
  // The node ends only once the lock is held, so its end is written behind it.
  await writeFile(join(home.paths.scratch(runId), 'go'), '');
  // Past the old busy timeout: the node's end, the heartbeat and the claim loop all wait.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await lock.release();

  const { run, events } = await finished(server.url, runId);
  expect(run.status).toBe('completed');
  expect(events.filter((e) => e.step_name === 'n').map((e) => e.event_type)).toEqual(['node_started', 'node_completed']);
  expect(events.at(-1)!.event_type).toBe('workflow_completed');
});
