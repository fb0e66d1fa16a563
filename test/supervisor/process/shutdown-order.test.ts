import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

// Ignores SIGTERM, so stopping it takes the whole kill grace before SIGKILL.
const stubborn = `name: stubborn
description: a node that outlasts SIGTERM
nodes:
  - id: stubborn
    bash: "trap '' TERM; sleep 60"
`;

it("writes the 'stopped' heartbeat only once the processes of its runs are gone", async () => {
  const sup = await startSupervisor(home, { id: 'sup-stopping' });
  const run = await sup.createRun(stubborn);
  const started = await waitFor(async () => (await sup.events(run.id)).find((e) => e.event_type === 'node_started'), {
    what: 'the node to start',
  });
  const group = started.data.pid as number;

  // Another supervisor reads 'stopped' as "gone: take its runs and jobs now". Watch for that
  // state while the node's group is still alive, from another connection, until shutdown ends.
  const observer = home.openStore();
  const stoppedWhileAlive: string[] = [];
  let shutDown = false;
  const shutdown = sup.supervisor.shutdown({ drain: false }).finally(() => (shutDown = true));
  while (!shutDown) {
    const beat = (await observer.listHeartbeats()).find((b) => b.id === 'sup-stopping');
    if (beat?.state === 'stopped' && isProcessGroupAlive(group)) stoppedWhileAlive.push(beat.heartbeat_at);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await shutdown;

  expect(stoppedWhileAlive).toEqual([]);
  expect(isProcessGroupAlive(group)).toBe(false);
  expect((await observer.listHeartbeats()).find((b) => b.id === 'sup-stopping')?.state).toBe('stopped');
  expect(await observer.getRun(run.id)).toMatchObject({ status: 'running', owner_id: null });
});
