import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** Every Store: the private session handles of a run's nodes (store/node-sessions.ts). */
export function describeNodeSessionContract(backend: StoreBackend): void {
  describe('node sessions', () => {
    const h = useHarness(backend);

    it('keeps the last handle of a node path, unfinished or completed, replaces it, and forgets it on null', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      expect(await store.getNodeSession(run.id, 'a')).toBeUndefined();
      await store.setNodeSession(run.id, 'a', { provider: 'claude', sessionId: 's1', attemptId: 'at1', completed: false });
      expect(await store.getNodeSession(run.id, 'a')).toEqual({ provider: 'claude', sessionId: 's1', attemptId: 'at1', completed: false });
      await store.setNodeSession(run.id, 'a', { provider: 'claude', sessionId: 's2', attemptId: 'at2', completed: true });
      expect(await store.getNodeSession(run.id, 'a')).toEqual({ provider: 'claude', sessionId: 's2', attemptId: 'at2', completed: true });
      expect(await store.getNodeSession(run.id, 'loop/body')).toBeUndefined();
      await store.setNodeSession(run.id, 'a', null);
      expect(await store.getNodeSession(run.id, 'a')).toBeUndefined();
    });

    it('keeps no handle for a run that does not exist, and none outlives its run', async () => {
      const store = h().open();
      await store.setNodeSession('no-such-run', 'a', { provider: 'claude', sessionId: 's', attemptId: 'x', completed: true });
      expect(await store.getNodeSession('no-such-run', 'a')).toBeUndefined();
      const run = await store.createRun(newRun());
      await store.setNodeSession(run.id, 'a', { provider: 'claude', sessionId: 's', attemptId: 'x', completed: true });
      expect(await store.deleteRun(run.id, ['pending'])).toBe(true);
      expect(await store.getNodeSession(run.id, 'a')).toBeUndefined();
    });
  });
}
