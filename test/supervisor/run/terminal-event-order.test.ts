import { afterEach, beforeEach, expect, it } from 'vitest';
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

const failingThenSkip = `name: drain-skip
description: a node that fails during a drain, and its dependant that is skipped for it
nodes:
  - id: a
    bash: "sleep 0.3; exit 1"
  - id: b
    depends_on: [a]
    bash: echo never
`;

it('during a drain, a skip decided by the last attempt is committed before the run ends: the terminal event is last', async () => {
  const sup = await startSupervisor(home);
  const run = await sup.createRun(failingThenSkip);
  await waitFor(async () => (await sup.events(run.id)).some((e) => e.event_type === 'node_started'), { what: 'a to start' });
  await sup.stop({ drain: true });

  const events = await sup.events(run.id);
  expect(events.map((e) => `${e.event_type}${e.step_name ? `:${e.step_name}` : ''}`)).toEqual([
    'workflow_started', 'node_started:a', 'node_failed:a', 'node_skipped:b', 'workflow_failed',
  ]);
  expect((await sup.store.getRun(run.id))!.status).toBe('failed');
});

it('a cancel while dependants are being skipped ends with the cancel as the last event', async () => {
  const sup = await startSupervisor(home);
  const run = await sup.createRun(failingThenSkip);
  await waitFor(async () => (await sup.events(run.id)).some((e) => e.event_type === 'node_started'), { what: 'a to start' });
  await sup.store.enqueueJob('cancel_run', run.id);
  await sup.waitForStatus(run.id, ['cancelled', 'failed']);
  const events = await sup.events(run.id);
  expect(events.at(-1)!.event_type).toMatch(/^workflow_(cancelled|failed)$/);
  expect(events.filter((e) => e.event_type.startsWith('workflow_') && e.event_type !== 'workflow_started')).toHaveLength(1);
});
