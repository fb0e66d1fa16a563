import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';
import type { Store } from '../../../src/store/store.js';
import type { RunStatus } from '../../../src/store/schemas/run.js';

/** Child runs: the parent link, one child per (parent, node, index), descendants, and the news of a child's end. */
export function describeChildRunContract(backend: StoreBackend): void {
  describe('child runs', () => {
    const h = useHarness(backend);

    /** Moves a pending run to running under `owner`, its start job claimed and done first. */
    async function drive(store: Store, runId: string, owner = 'sup-a') {
      for (let job = await store.claimJob(owner, 60_000); job; job = await store.claimJob(owner, 60_000)) await store.finishJob(job.id, owner, 'done');
      await store.acquireRun({ runId, ownerId: owner, leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
    }

    it('links a child to its parent, node and index, and creating it again returns the same child', async () => {
      const store = h().open();
      const parent = await store.createRun(newRun());
      const child = await store.createRun(newRun({ parent: { runId: parent.id, nodeId: 'each', childIndex: 1 }, metadata: { parent_node_id: 'each', child_index: 1 } }));
      expect(child.parent_run_id).toBe(parent.id);
      const again = await store.createRun(newRun({ parent: { runId: parent.id, nodeId: 'each', childIndex: 1 } }));
      expect(again.id).toBe(child.id);
      const first = await store.createRun(newRun({ parent: { runId: parent.id, nodeId: 'each', childIndex: 0 } }));
      expect((await store.listChildRuns(parent.id, 'each')).map((r) => r.id)).toEqual([first.id, child.id]);
      expect(await store.getChildRun(parent.id, 'each', 1)).toMatchObject({ id: child.id });
      expect(await store.getChildRun(parent.id, 'other', 1)).toBeUndefined();
      // One start job per child, not one per request.
      expect((await store.listRunJobs(child.id)).filter((j) => j.kind === 'start_run')).toHaveLength(1);
    });

    it('lists the open descendants of a run, nearest first, leaving out those that ended', async () => {
      const store = h().open();
      const root = await store.createRun(newRun());
      const child = await store.createRun(newRun({ parent: { runId: root.id, nodeId: 'a', childIndex: 0 } }));
      const grandchild = await store.createRun(newRun({ parent: { runId: child.id, nodeId: 'b', childIndex: 0 } }));
      const ended = await store.createRun(newRun({ parent: { runId: root.id, nodeId: 'c', childIndex: 0 } }));
      await drive(store, ended.id);
      await store.transitionRun({ runId: ended.id, ownerId: 'sup-a', status: 'completed', release: true, events: [] });
      expect((await store.listOpenDescendants(root.id)).map((r) => r.id)).toEqual([child.id, grandchild.id]);
      expect(await store.listOpenDescendants(grandchild.id)).toEqual([]);
    });

    it.each<RunStatus>(['paused', 'completed', 'failed', 'cancelled'])('queues child_run_settled on the parent in the transaction that makes a child %s', async (status) => {
      const store = h().open();
      const parent = await store.createRun(newRun());
      const child = await store.createRun(newRun({ parent: { runId: parent.id, nodeId: 'n', childIndex: 0 } }));
      await drive(store, child.id);
      expect((await store.listRunJobs(parent.id)).some((j) => j.kind === 'child_run_settled')).toBe(false);
      await store.transitionRun({ runId: child.id, ownerId: 'sup-a', status, release: true, events: [] });
      const news = (await store.listRunJobs(parent.id)).filter((j) => j.kind === 'child_run_settled');
      expect(news).toMatchObject([{ status: 'queued', payload: { childRunId: child.id, status } }]);
    });

    it('queues nothing for a run without a parent', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await drive(store, run.id);
      await store.transitionRun({ runId: run.id, ownerId: 'sup-a', status: 'completed', release: true, events: [] });
      expect((await store.listRunJobs(run.id)).map((j) => j.kind)).toEqual(['start_run']);
    });
  });
}
