import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startTimedSupervisor } from '../process/timed-supervisor.js';

/**
 * The supervisor reads a run's stored definition back through the schema and the graph checks
 * (not the whole validation, which the API already did): a row from another version or edited
 * by hand fails the run with the reason, and nothing of it runs.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it.each([
  ['a cycle', [{ id: 'a', bash: 'true', depends_on: ['b'] }, { id: 'b', bash: 'true', depends_on: ['a'] }], /Cycle detected among nodes/],
  ['an unknown dependency', [{ id: 'a', bash: 'true', depends_on: ['zz'] }], /Node 'a' depends_on unknown node 'zz'/],
  ['a node with no mode', [{ id: 'a' }], /Node 'a'/],
  ['an include node', [{ id: 'a', include: 'other' }], /include node/],
])('fails a run whose stored definition has %s', async (_label, nodes, reason) => {
  const store = home.openStore();
  const run = await store.createRun({
    id: randomUUID(), workflowName: 'edited', conversationId: `conv-${randomUUID()}`, workingPath: null,
    userMessage: '', inputs: {}, metadata: {}, definition: { name: 'edited', description: 'hand-edited row', nodes } as never,
  });
  await startTimedSupervisor(home, { id: 'sup-stored' });
  const failed = await waitFor(async () => {
    const row = await store.getRun(run.id);
    return row?.status === 'failed' ? row : undefined;
  }, { what: 'the run to fail' });
  expect(failed.error).toMatch(/stored definition is not a valid workflow/);
  expect(failed.error).toMatch(reason);
  const types = (await store.listRunEvents(run.id)).map((e) => e.event_type);
  expect(types.filter((t) => t.startsWith('node_'))).toEqual([]);
});
