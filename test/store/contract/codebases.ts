import { describe, expect, it } from 'vitest';
import type { NewCodebase } from '../../../src/store/store.js';
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
