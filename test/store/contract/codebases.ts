import { describe, expect, it } from 'vitest';
import type { NewCodebase } from '../../../src/store/store.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

const scan = { status: 'clean' as const, files: [], keys: [], scanned_at: '2026-01-01T00:00:00.000Z' };
const codebase = (id: string, over: Partial<NewCodebase> = {}): NewCodebase => ({
  id, name: id, repository_url: `https://example.test/${id}.git`, default_cwd: `/src/${id}`,
  default_branch: 'main', kind: 'repo', managed: false, env_scan: scan, ...over,
});
const environment = (id: string, codebaseId: string) => ({
  id, codebase_id: codebaseId, workflow_type: 'task', workflow_id: id, provider: 'worktree',
  working_path: `/wt/${id}`, branch_name: null, created_by_platform: 'web', metadata: {},
});

/** CodebaseStore: registrations keyed by owner/repo, consent, and their isolation environments. */
export function describeCodebaseContract(backend: StoreBackend): void {
  describe('codebases', () => {
    const h = useHarness(backend);

    it('registers an id once: the second registration answers the first row, not created', async () => {
      const store = h().open();
      const first = await store.registerCodebase(codebase('o/r'));
      const second = await store.registerCodebase(codebase('o/r', { default_cwd: '/elsewhere' }));
      expect(first.created).toBe(true);
      expect(second).toEqual({ codebase: first.codebase, created: false });
      expect(first.codebase).toMatchObject({ default_cwd: '/src/o/r', allow_env_keys: false, managed: false, env_scan: scan });
    });

    it('lists sorted by id and reads one; unknown ids are undefined', async () => {
      const store = h().open();
      await store.registerCodebase(codebase('z/z'));
      await store.registerCodebase(codebase('a/b', { kind: 'folder', repository_url: null, managed: true }));
      expect((await store.listCodebases()).map((c) => c.id)).toEqual(['a/b', 'z/z']);
      expect(await store.getCodebase('a/b')).toMatchObject({ kind: 'folder', repository_url: null, managed: true });
      expect(await store.getCodebase('no/such')).toBeUndefined();
    });

    it('records consent with the scan it was decided on', async () => {
      const store = h().open();
      await store.registerCodebase(codebase('o/r'));
      const found = { ...scan, status: 'keys_found' as const, files: ['.env'], keys: ['API_KEY'] };
      expect(await store.setCodebaseEnvConsent('o/r', true, found)).toMatchObject({ allow_env_keys: true, env_scan: found });
      expect(await store.setCodebaseEnvConsent('o/r', false, scan)).toMatchObject({ allow_env_keys: false, env_scan: scan });
      expect(await store.setCodebaseEnvConsent('no/such', true, scan)).toBeUndefined();
    });

    it('deletes a codebase with its isolation environments and leaves other codebases alone', async () => {
      const store = h().open();
      await store.registerCodebase(codebase('o/r'));
      await store.registerCodebase(codebase('o/other'));
      await store.createIsolationEnvironment(environment('e1', 'o/r'));
      await store.createIsolationEnvironment(environment('e2', 'o/other'));
      expect((await store.listIsolationEnvironments('o/r')).map((e) => [e.id, e.status])).toEqual([['e1', 'active']]);
      expect((await store.deleteCodebase('o/r'))?.id).toBe('o/r');
      expect(await store.getCodebase('o/r')).toBeUndefined();
      expect(await store.listIsolationEnvironments('o/r')).toEqual([]);
      expect((await store.listIsolationEnvironments('o/other')).map((e) => e.id)).toEqual(['e2']);
      expect(await store.deleteCodebase('o/r')).toBeUndefined();
    });

    it('keeps at most one active environment per codebase, workflow type and workflow id', async () => {
      const store = h().open();
      await store.registerCodebase(codebase('o/r'));
      await store.createIsolationEnvironment(environment('e1', 'o/r'));
      await expect(store.createIsolationEnvironment({ ...environment('e2', 'o/r'), workflow_id: 'e1' })).rejects.toThrow();
    });
  });
}

/** Run isolation: an environment's lock is a lease taken with the run, like the run's own. */
export function describeIsolationLockContract(backend: StoreBackend): void {
  describe('isolation locks', () => {
    const h = useHarness(backend);
    const worktree = (id: string, runId: string, branch: string | null) => ({
      id, codebase_id: 'o/r', workflow_type: 'run', workflow_id: runId, provider: 'worktree',
      working_path: `/wt/${runId}`, branch_name: branch, created_by_platform: 'cairn', metadata: {},
    });

    async function runningRun(store: ReturnType<ReturnType<typeof h>['open']>, owner: string) {
      const run = await store.createRun({ ...newRun(), codebaseId: 'o/r' });
      await store.acquireRun({ runId: run.id, ownerId: owner, leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      return run;
    }

    it('claims with the lock, sets the run’s working_path, refuses the same branch, releases at the terminal transition', async () => {
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      const store = h().open({ clock: () => now });
      await store.registerCodebase(codebase('o/r'));
      const a = await runningRun(store, 'sup-a');
      const b = await runningRun(store, 'sup-a');
      const claimed = await store.claimRunIsolation({ runId: a.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e1', a.id, 'feat') });
      expect(claimed).toMatchObject({ kind: 'claimed', created: true, env: { locked_by_run: a.id, lock_owner: 'sup-a', lock_expires_at: '2026-01-01T00:00:15.000Z' } });
      expect((await store.getRun(a.id))!.working_path).toBe(`/wt/${a.id}`);
      const refused = await store.claimRunIsolation({ runId: b.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e2', b.id, 'feat') });
      expect(refused).toMatchObject({ kind: 'branch_held', env: { id: 'e1' } });
      now += 5_000;
      expect(await store.renewIsolationLocks('sup-a', [a.id], 15_000)).toBe(1);
      expect(await store.renewIsolationLocks('sup-b', [a.id], 15_000)).toBe(0);
      await store.transitionRun({ runId: a.id, ownerId: 'sup-a', status: 'completed', release: true, events: [] });
      const [env] = await store.listIsolationEnvironments('o/r');
      expect(env).toMatchObject({ status: 'active', locked_by_run: null, lock_owner: null, lock_expires_at: null, branch_name: 'feat' });
    });

    it('lets the run’s next owner take a lapsed lock, and refuses a claim by a run that is not the caller’s', async () => {
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      const store = h().open({ clock: () => now });
      await store.registerCodebase(codebase('o/r'));
      const run = await runningRun(store, 'sup-a');
      await store.claimRunIsolation({ runId: run.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e1', run.id, 'x') });
      now += 60_000; // sup-a died: its run lease and its lock lapsed
      await store.acquireRun({ runId: run.id, ownerId: 'sup-b', leaseMs: 60_000, fromStatuses: ['running'], status: 'running', previousOwner: 'sup-a', events: [] });
      const taken = await store.claimRunIsolation({ runId: run.id, ownerId: 'sup-b', leaseMs: 15_000, env: worktree('ignored', run.id, 'x') });
      expect(taken).toMatchObject({ kind: 'claimed', created: false, env: { id: 'e1', locked_by_run: run.id, lock_owner: 'sup-b' } });
      await expect(
        store.claimRunIsolation({ runId: run.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e9', run.id, 'y') }),
      ).rejects.toMatchObject({ code: 'RUN_INVALID_STATE' });
      await store.releaseIsolationLocks(run.id);
      expect((await store.listIsolationEnvironments('o/r'))[0]).toMatchObject({ locked_by_run: null });
    });

    it('removes an environment only while no run holds it under a live lock, and a reservation at once', async () => {
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      const store = h().open({ clock: () => now });
      await store.registerCodebase(codebase('o/r'));
      await store.registerCodebase(codebase('o/other'));
      const run = await runningRun(store, 'sup-a');
      await store.claimRunIsolation({ runId: run.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e1', run.id, 'x') });
      expect(await store.removeIdleIsolationEnvironment('o/r', 'e1')).toMatchObject({ kind: 'locked', env: { id: 'e1', locked_by_run: run.id } });
      expect(await store.removeIdleIsolationEnvironment('o/other', 'e1')).toEqual({ kind: 'not_found' });
      expect(await store.removeIdleIsolationEnvironment('o/r', 'no-such-env')).toEqual({ kind: 'not_found' });
      now += 60_000; // the lock lapsed: the environment is idle
      expect(await store.removeIdleIsolationEnvironment('o/r', 'e1')).toMatchObject({ kind: 'removed', env: { id: 'e1' } });
      expect(await store.listIsolationEnvironments('o/r')).toEqual([]);

      // A reservation whose worktree could not be made goes whatever holds it.
      const other = await runningRun(store, 'sup-a');
      await store.claimRunIsolation({ runId: other.id, ownerId: 'sup-a', leaseMs: 15_000, env: worktree('e2', other.id, 'y') });
      await store.removeIsolationEnvironment('e2');
      expect(await store.listIsolationEnvironments('o/r')).toEqual([]);
      await store.removeIsolationEnvironment('e2');
    });
  });
}
