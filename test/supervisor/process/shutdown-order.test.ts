import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessGroupAlive } from '../../../src/shared/process-group.js';
import type { Store } from '../../../src/store/store.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startTimedSupervisor } from './timed-supervisor.js';

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

it('stops at once when the stop comes while the claim loop is asking the store for work', async () => {
  // The loop's idle wait is an hour, and so is the heartbeat (whose commits wake it): a stop
  // the loop does not see would hold shutdown that long.
  const real = home.openStore();
  let gated = false;
  let entered!: () => void;
  let release!: () => void;
  const inClaim = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'claimJob' && gated) {
        return async (...args: Parameters<Store['claimJob']>) => {
          entered();
          await released;
          return target.claimJob(...args);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const { supervisor } = await startTimedSupervisor(home, { id: 'sup-asking', store, timing: { idlePollMs: 3_600_000, heartbeatMs: 3_600_000 } });
  gated = true;
  // Any commit from elsewhere wakes the idle loop, which asks for a job and is held there.
  await home.openStore().registerCodebase({
    id: 'acme/app', name: 'acme/app', repository_url: null, default_cwd: home.home, default_branch: null, kind: 'folder', managed: false,
    env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
  await inClaim;
  const stopping = supervisor.shutdown({ drain: false });
  release();
  await stopping;
  expect((await real.listHeartbeats()).find((b) => b.id === 'sup-asking')?.state).toBe('stopped');
});
