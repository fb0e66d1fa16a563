import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/log.js';
import type { Store } from '../../../src/store/store.js';
import { ChildRuns } from '../../../src/supervisor/children/child-runs.js';
import { ChildRunSignals } from '../../../src/supervisor/children/child-signals.js';
import { newRun } from '../../store/fixtures.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

/**
 * A parent node waiting for its child, on a real SQLite store: the news of the child's end
 * normally comes through a `child_run_settled` job; when that news never arrives, the node still
 * reads the child's end within its re-check interval instead of waiting forever.
 */

let home: TempHome;
let store: Store;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
});
afterEach(async () => {
  await home.close();
});

async function parentAndChild() {
  const parent = await store.createRun(newRun());
  const child = await store.createRun(newRun({ parent: { runId: parent.id, nodeId: 'call', childIndex: 0 }, metadata: { parent_node_id: 'call', child_index: 0 } }));
  const children = new ChildRuns({
    store,
    signals: new ChildRunSignals(),
    lookup: () => Promise.reject(new Error('no lookup in this test')),
    parent,
    workingPath: null,
    env: {},
    installKey: () => {
      throw new Error('no key in this test');
    },
    log: silentLogger(),
    recheckMs: 50,
  });
  return { child, children };
}

/** Ends `runId` as its supervisor would, with nobody handing the news to the waiting parent. */
async function endUnannounced(runId: string, status: 'completed' | 'failed'): Promise<void> {
  for (let job = await store.claimJob('sup-child', 60_000); job; job = await store.claimJob('sup-child', 60_000)) await store.finishJob(job.id, 'sup-child', 'done');
  await store.acquireRun({ runId, ownerId: 'sup-child', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.transitionRun({ runId, ownerId: 'sup-child', status, release: true, ...(status === 'failed' ? { error: 'it broke' } : {}), events: [] });
}

it('reads the end of a child whose news never came, within the re-check interval', async () => {
  const { child, children } = await parentAndChild();
  let settled: unknown;
  const waiting = children.settled(child.id, new AbortController().signal).then((end) => (settled = end));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(settled).toBeUndefined(); // still running: the node keeps waiting

  await endUnannounced(child.id, 'failed');
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the wait never ended')), 5_000));
  await Promise.race([waiting, timeout]);
  expect(settled).toMatchObject({ status: 'failed', runId: child.id, error: 'it broke' });
});

it('stops waiting at once when its node is stopped', async () => {
  const { child, children } = await parentAndChild();
  const controller = new AbortController();
  const waiting = children.settled(child.id, controller.signal);
  controller.abort('cancelled');
  expect(await waiting).toBeUndefined();
});
