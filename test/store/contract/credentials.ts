import { describe, expect, it } from 'vitest';
import type { CredentialWrite } from '../../../src/store/store.js';
import { useHarness, type StoreBackend } from './backend.js';

/** CredentialStore: one sealed credential per user and vendor. */
export function describeCredentialContract(backend: StoreBackend): void {
  describe('provider credentials', () => {
    const h = useHarness(backend);
    const key = (user: string, vendor: string, sealed = `cairn:v1:id:${user}-${vendor}`): CredentialWrite => ({
      user_id: user, vendor, kind: 'api_key', label: 'mine', sealed_secret: sealed, sealed_refresh: null, expires_at: null,
    });

    it('keeps one credential per user and vendor, replaced by a reconnect, isolated between users', async () => {
      const store = h().open();
      await store.putCredential(key('ann', 'openai'));
      await store.putCredential(key('ann', 'anthropic'));
      await store.putCredential(key('bob', 'anthropic'));
      const again = await store.putCredential({ ...key('ann', 'anthropic', 'cairn:v1:id:second'), label: 'work' });
      expect(again).toMatchObject({ sealed_secret: 'cairn:v1:id:second', label: 'work' });
      expect((await store.listCredentials('ann')).map((c) => [c.vendor, c.sealed_secret])).toEqual([
        ['anthropic', 'cairn:v1:id:second'],
        ['openai', 'cairn:v1:id:ann-openai'],
      ]);
      expect((await store.getCredential('bob', 'anthropic'))?.sealed_secret).toBe('cairn:v1:id:bob-anthropic');
      expect(await store.getCredential('carol', 'anthropic')).toBeUndefined();
    });

    it('disconnects idempotently, touching only that user and vendor', async () => {
      const store = h().open();
      await store.putCredential(key('ann', 'openai'));
      await store.putCredential(key('bob', 'openai'));
      expect(await store.deleteCredential('ann', 'openai')).toBe(true);
      expect(await store.deleteCredential('ann', 'openai')).toBe(false);
      expect(await store.listCredentials('ann')).toEqual([]);
      expect(await store.listCredentials('bob')).toHaveLength(1);
    });

    it('replaces a refreshed token only while the credential still holds the one refreshed', async () => {
      const store = h().open();
      const oauth = { ...key('ann', 'anthropic', 'cairn:v1:id:a1'), kind: 'oauth' as const, sealed_refresh: 'cairn:v1:id:r1', expires_at: '2026-01-01T00:00:00.000Z' };
      await store.putCredential(oauth);
      const refreshed = { ...oauth, sealed_secret: 'cairn:v1:id:a2', expires_at: '2026-01-01T01:00:00.000Z' };
      expect(await store.replaceCredentialIf('cairn:v1:id:a1', refreshed)).toBe(true);
      // A second refresher that started from a1 lost: its token is not written over a2.
      expect(await store.replaceCredentialIf('cairn:v1:id:a1', { ...oauth, sealed_secret: 'cairn:v1:id:a3' })).toBe(false);
      expect(await store.getCredential('ann', 'anthropic')).toMatchObject({ sealed_secret: 'cairn:v1:id:a2', expires_at: '2026-01-01T01:00:00.000Z' });
    });

    it('refuses a secret that is not sealed', async () => {
      const store = h().open();
      await expect(store.putCredential(key('ann', 'openai', 'sk-plain-text'))).rejects.toThrow();
      expect(await store.listCredentials('ann')).toEqual([]);
    });
  });
}
