import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/log.js';
import { newRunLevelEvent } from '../../../src/store/schemas/run-level-events.js';
import type { Run } from '../../../src/store/schemas/run.js';
import type { Store } from '../../../src/store/store.js';
import { RunEnd } from '../../../src/supervisor/run/run-end.js';
import { createRunRow } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

let home: TempHome;
let store: Store;
let run: Run;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  const created = await createRunRow(store, 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: "true"\n');
  run = (await store.acquireRun({
    runId: created.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [],
  }))!;
});
afterEach(async () => {
  await home.close();
});

const endOf = (ownerId = 'sup-a') => new RunEnd({ store, runId: run.id, ownerId, log: silentLogger() });

it('commits one terminal state: a second ending racing the first (a cancel against a completion) changes nothing', async () => {
  const end = endOf();
  const first = end.finish('completed', null, [newRunLevelEvent(run, 'workflow_completed', { duration_ms: 1 })]);
  const second = end.finish('cancelled', null, [newRunLevelEvent(run, 'workflow_cancelled', { reason: 'late' })]);
  expect(end.reached).toBe(true);
  expect(second).toBe(first);
  expect(await end.done).toBe('completed');
  expect(end.finished).toBe(true);
  expect(await store.getRun(run.id)).toMatchObject({ status: 'completed', owner_id: null });
  const types = (await store.listRunEvents(run.id)).map((e) => e.event_type);
  expect(types).toContain('workflow_completed');
  expect(types).not.toContain('workflow_cancelled');
});

it('lets a run sleep only once the store took it: the run is then owned by nobody and the scheduler done', async () => {
  const end = endOf();
  let timersLetGo = false;
  expect(await end.sleep(Date.now() + 60_000, () => (timersLetGo = true))).toBe(true);
  expect(timersLetGo).toBe(true);
  expect(await end.done).toBe('released');
  expect(await store.getRun(run.id)).toMatchObject({ status: 'running', owner_id: null });
});

it('keeps driving a run whose sleep the store refuses (another owner holds it): nothing is let go', async () => {
  const end = endOf('sup-b');
  let timersLetGo = false;
  expect(await end.sleep(Date.now() + 60_000, () => (timersLetGo = true))).toBe(false);
  expect(timersLetGo).toBe(false);
  expect(end.reached).toBe(false);
  expect(await store.getRun(run.id)).toMatchObject({ status: 'running', owner_id: 'sup-a' });
});
