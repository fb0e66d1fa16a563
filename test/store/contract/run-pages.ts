import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import type { RunCursor } from '../../../src/store/schemas/run-page.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** Every run of the list, paged `limit` at a time, as a client pages it. */
async function allPages(store: Store, limit: number, query: { workflowName?: string } = {}): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: RunCursor | undefined;
  for (;;) {
    const page = await store.listRunPage({ ...query, limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.runs.map((run) => run.id));
    if (!page.nextCursor) return pages;
    cursor = page.nextCursor;
  }
}

/** Reading runs back: a run's definition snapshot, the run list's cursor pages, the dashboard's page. */
export function describeRunPageContract(backend: StoreBackend): void {
  describe('run pages', () => {
    const h = useHarness(backend);

    it('keeps the definition a run was created with, and answers undefined for an unknown run', async () => {
      const store = h().open();
      const definition = { name: 'demo', description: 'd', nodes: [{ id: 'a', bash: 'echo "x"' }, { id: 'b', bash: 'true', depends_on: ['a'] }] };
      const run = await store.createRun(newRun({ definition }));
      expect(await store.getRunDefinition(run.id)).toEqual(definition);
      expect(await store.getRunDefinition('no-such-run')).toBeUndefined();
    });

    it('pages newest first with no gap and no repeat, even when runs share a millisecond or arrive while paging', async () => {
      // A frozen clock: every run has the same created_at, so only the insertion order orders them.
      const store = h().open({ clock: () => Date.parse('2026-01-01T00:00:00.000Z') });
      const created: string[] = [];
      for (let i = 0; i < 7; i++) created.push((await store.createRun(newRun({ workflowName: i % 2 ? 'odd' : 'even' }))).id);
      const newestFirst = [...created].reverse();
      for (const limit of [1, 3, 7, 10]) expect((await allPages(store, limit)).flat()).toEqual(newestFirst);
      expect((await allPages(store, 2, { workflowName: 'odd' })).flat()).toEqual(newestFirst.filter((_, i) => i % 2 === 1));

      const first = await store.listRunPage({ limit: 3 });
      await store.createRun(newRun());
      const next = await store.listRunPage({ limit: 3, cursor: first.nextCursor! });
      expect(next.runs.map((run) => run.id)).toEqual(newestFirst.slice(3, 6));
    });

    it('answers the dashboard’s page with each run’s facts, how many match and the counts per status', async () => {
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      const store = h().open({ clock: () => (now += 1000) });
      const definition = { name: 'build', description: 'd', nodes: [{ id: 'a', bash: 'true' }, { id: 'b', bash: 'true' }, { id: 'c', bash: 'true' }] };
      const build = await store.createRun(newRun({ workflowName: 'build', userMessage: 'ship the release', definition }));
      await store.acquireRun({ runId: build.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      const event = (step: string, type: string) => ({ run_id: build.id, conversation_id: build.conversation_id, event_type: type, step_name: step, data: {} });
      await store.appendEvents([event('a', 'node_started'), event('a', 'node_completed'), event('b', 'node_started'), event('b', 'node_failed'), event('c', 'node_started')]);
      await store.createRun(newRun({ workflowName: 'lint', userMessage: 'check style' }));
      const deploy = await store.createRun(newRun({ workflowName: 'deploy', userMessage: 'Release notes' }));

      const all = await store.listDashboardRuns({ limit: 10, offset: 0 });
      expect(all.total).toBe(3);
      expect(all.counts).toMatchObject({ all: 3, pending: 2, running: 1, completed: 0 });
      expect(all.runs.map((run) => run.workflow_name)).toEqual(['deploy', 'lint', 'build']);
      expect(all.runs[2]).toMatchObject({
        id: build.id, status: 'running', worker_platform_id: build.conversation_id, parent_platform_id: null, codebase_name: null,
        current_step_name: 'c', current_step_status: 'running', total_steps: 3, agents_total: 3, agents_completed: 1, agents_failed: 1,
      });

      // A search matches the workflow name or the message, case-insensitively; counts follow the filters, the status one aside.
      const release = await store.listDashboardRuns({ search: 'release', limit: 10, offset: 0 });
      expect(release.runs.map((run) => run.workflow_name)).toEqual(['deploy', 'build']);
      expect(release.counts).toMatchObject({ all: 2, pending: 1, running: 1 });
      const pending = await store.listDashboardRuns({ search: 'release', status: 'pending', limit: 10, offset: 0 });
      expect([pending.total, pending.runs.map((run) => run.workflow_name), pending.counts.all]).toEqual([1, ['deploy'], 2]);

      // Offset pages, and a time window on creation.
      expect((await store.listDashboardRuns({ limit: 1, offset: 1 })).runs.map((run) => run.workflow_name)).toEqual(['lint']);
      expect(await store.listDashboardRuns({ limit: 10, offset: 5 })).toMatchObject({ runs: [], total: 3 });
      const window = await store.listDashboardRuns({ after: build.created_at, before: deploy.created_at, limit: 10, offset: 0 });
      expect(window.runs.map((run) => run.workflow_name)).toEqual(['lint', 'build']);
    });
  });
}
