import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { waitForRunFile } from '../helpers/run-files.js';
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

/**
 * A node that ignores SIGTERM (so a kill takes the full grace period), with a watcher in a session
 * of its own that logs the moment the node's group leader dies. It finishes at once when it runs
 * again after the take-over.
 */
function stubbornNode(id: string, log: string): string {
  const watcher = `while kill -0 $$ 2>/dev/null; do sleep 0.05; done; echo dead-${id} >> '${log}'`;
  return `  - id: ${id}
    bash: |
      if [ -e done-${id} ]; then echo again; exit 0; fi
      touch done-${id}
      # Its output pipes die with the supervisor: a write to them now would end it by SIGPIPE.
      exec >/dev/null 2>&1
      trap 'echo term-${id} >> "${log}"' TERM
      setsid sh -c "${watcher}" </dev/null >/dev/null 2>&1 &
      touch ready-${id}
      while :; do sleep 0.1; done
`;
}

it('a take-over kills every orphaned group at once: all get SIGTERM before any is killed', async () => {
  // Nodes started by Node's own spawn outlive a supervisor killed -9, as they do on another host
  // for a supervisor taking over there: only the take-over's kill reaches them. (The default
  // spawn helper ends its children itself when its supervisor dies: launchers.test.ts.)
  const server = await startServer(home, { CAIRN_EXEC_SPAWNER: 'direct' });
  const log = join(home.home, 'kills.log');
  await writeHomeWorkflow(home, 'three-stubborn', `name: three-stubborn
description: three nodes that ignore SIGTERM
nodes:
${['a', 'b', 'c'].map((id) => stubbornNode(id, log)).join('')}`);
  const { runId } = await startRun(server.url, 'three-stubborn');
  for (const id of ['a', 'b', 'c']) await waitForRunFile(home, { id: runId }, `ready-${id}`);

  process.kill(await server.pid('supervisor'), 'SIGKILL');

  await waitFor(async () => (await getRun(server.url, runId)).run.status === 'completed', {
    what: 'the run to complete after the take-over',
    timeoutMs: 45_000,
  });
  const lines = await waitFor(async () => {
    const text = await readFile(log, 'utf8').catch(() => '');
    const found = text.trim().split('\n').filter(Boolean);
    return found.filter((l) => l.startsWith('dead-')).length === 3 ? found : undefined;
  }, { what: 'the three deaths to be logged' });
  // One at a time, each group would die (after its grace) before the next got its SIGTERM.
  const firstDeath = lines.findIndex((l) => l.startsWith('dead-'));
  expect(lines.slice(0, firstDeath).sort()).toEqual(['term-a', 'term-b', 'term-c']);
});
