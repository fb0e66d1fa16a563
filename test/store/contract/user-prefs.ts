import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** UserPrefsStore, and the user a run records. */
export function describeUserPrefsContract(backend: StoreBackend): void {
  describe('per-user AI preferences', () => {
    const h = useHarness(backend);

    it('starts empty, merges per key, unsets with null, and keeps users apart', async () => {
      const store = h().open();
      expect(await store.getAiPrefs('alice')).toEqual({});
      await store.patchAiPrefs('alice', { kind: 'tiers', entries: { small: { provider: 'claude', model: 'haiku' }, large: { provider: 'claude', model: 'opus' } } });
      expect(await store.patchAiPrefs('alice', { kind: 'tiers', entries: { small: null } })).toEqual({ tiers: { large: { provider: 'claude', model: 'opus' } } });
      await store.patchAiPrefs('bob', { kind: 'default', value: { provider: 'codex', model: 'gpt-5' } });
      expect(await store.patchAiPrefs('bob', { kind: 'default', value: { provider: 'claude' } })).toEqual({ defaultProvider: 'claude' });
      // Another connection reads what was committed.
      const other = h().open();
      expect(await other.getAiPrefs('alice')).toEqual({ tiers: { large: { provider: 'claude', model: 'opus' } } });
      expect(await other.getAiPrefs("bob'; --")).toEqual({});
    });

    it('applies concurrent patches of one user without losing either', async () => {
      const [a, b] = [h().open(), h().open()];
      await Promise.all([
        a.patchAiPrefs('carol', { kind: 'aliases', entries: { '@a': { provider: 'claude', model: 'haiku' } } }),
        b.patchAiPrefs('carol', { kind: 'aliases', entries: { '@b': { provider: 'claude', model: 'opus' } } }),
      ]);
      expect(Object.keys((await a.getAiPrefs('carol')).aliases ?? {}).sort()).toEqual(['@a', '@b']);
    });

    it('records the user of a run, or null', async () => {
      const store = h().open();
      const mine = await store.createRun({ ...newRun(), userId: 'alice' });
      const anonymous = await store.createRun(newRun());
      expect((await store.getRun(mine.id))?.user_id).toBe('alice');
      expect((await store.getRun(anonymous.id))?.user_id).toBeNull();
    });
  });
}
