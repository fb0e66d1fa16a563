import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { readPidFile } from '../../src/launcher/run-dir.js';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { freePort } from '../helpers/free-port.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, startCli } from './cli-process.js';

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('cairn serve --drain lets a running node finish before the server stops', async () => {
  const gate = join(home.home, 'gate');
  await writeHomeWorkflow(
    home,
    'slow',
    `name: slow
description: one node that waits for the test
nodes:
  - id: work
    bash: "while [ ! -f '${gate}' ]; do sleep 0.05; done; echo finished"
`,
  );
  const port = await freePort();
  const serve = startCli(['serve', '--drain'], {
    env: { ...process.env, CAIRN_HOME: home.home, PORT: String(port), CAIRN_LOG_LEVEL: 'info' },
    cwd: home.home,
  });
  home.defer(async () => {
    serve.child.kill('SIGKILL');
    await serve.exited;
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(() => /Cairn is listening on/.test(serve.stdout()), { what: 'the server to be ready' });
  const { runId } = await startRun(url, 'slow');
  const store = home.openStore();
  await waitFor(async () => (await store.listRunEvents(runId)).some((e) => e.event_type === 'node_started'), {
    what: 'the node to start',
  });
  const supervisorPid = readPidFile(home.paths.supervisorPid)!;

  serve.child.kill('SIGTERM');
  await waitFor(() => serve.stdout().includes('supervisor.shutdown_started'), { what: 'the supervisor to start draining' });
  expect(isProcessAlive(supervisorPid)).toBe(true);
  await writeFile(gate, '');

  expect(await serve.exited).toBe(0);
  expect(isProcessAlive(supervisorPid)).toBe(false);
  const events = await store.listRunEvents(runId);
  expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'work')?.data.node_output).toBe('finished');
});
