import { expect, it } from 'vitest';
import { openCredential, sealCredential } from '../../src/credentials/credential-seal.js';
import { loadInstallKey } from '../../src/shared/secrets/install-key.js';
import type { StoredCredential } from '../../src/store/store.js';

const key = loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: 'a'.repeat(64) }, file: '/nonexistent/install.key' });
const stored = (user: string, vendor: string, secret: string, refreshToken?: string): StoredCredential => ({
  ...sealCredential(key, user, { vendor, kind: 'oauth', label: 'l', secret, ...(refreshToken ? { refreshToken } : {}), expiresAt: 1_000 }),
  created_at: '', updated_at: '',
});

it('round-trips a credential, sealing each secret with a fresh IV', () => {
  const a = stored('ann', 'anthropic', 'tok', 'ref');
  const b = stored('ann', 'anthropic', 'tok', 'ref');
  expect(a.sealed_secret).not.toBe(b.sealed_secret);
  expect(a.sealed_secret).not.toContain('tok');
  expect(openCredential(key, a)).toEqual({ vendor: 'anthropic', kind: 'oauth', label: 'l', secret: 'tok', refreshToken: 'ref', expiresAt: 1_000 });
});

it('does not open a sealed value moved to another user, vendor, or part', () => {
  const ann = stored('ann', 'anthropic', 'tok', 'ref');
  expect(() => openCredential(key, { ...ann, user_id: 'bob' })).toThrow(/does not open/);
  expect(() => openCredential(key, { ...ann, vendor: 'openai' })).toThrow(/does not open/);
  expect(() => openCredential(key, { ...ann, sealed_secret: ann.sealed_refresh! })).toThrow(/does not open/);
  // A user id that looks like another context is still its own.
  const tricky = stored('ann:anthropic', 'x', 'tok');
  expect(() => openCredential(key, { ...tricky, user_id: 'ann', vendor: 'anthropic:x' })).toThrow(/does not open/);
});
