import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';
import type { CredentialKind, CredentialWrite, StoredCredential } from '../store/store.js';

/**
 * A credential's secrets, sealed with the install key for a context naming the user, the vendor
 * and the part (`provider-key:<user>:<vendor>:secret|refresh`): a sealed value copied to another
 * user's row, another vendor, or the other part does not open.
 */

export interface OpenCredential {
  vendor: string;
  kind: CredentialKind;
  label: string;
  /** The API key, or the OAuth access token. */
  secret: string;
  refreshToken?: string;
  /** ms since the epoch; undefined for an API key. */
  expiresAt?: number;
}

const contextOf = (userId: string, vendor: string, part: 'secret' | 'refresh') =>
  `provider-key:${JSON.stringify(userId)}:${vendor}:${part}`;

export function sealCredential(key: InstallKey, userId: string, credential: OpenCredential): CredentialWrite {
  return {
    user_id: userId,
    vendor: credential.vendor,
    kind: credential.kind,
    label: credential.label,
    sealed_secret: sealSecret(key, credential.secret, contextOf(userId, credential.vendor, 'secret')),
    sealed_refresh:
      credential.refreshToken === undefined ? null : sealSecret(key, credential.refreshToken, contextOf(userId, credential.vendor, 'refresh')),
    expires_at: credential.expiresAt === undefined ? null : new Date(credential.expiresAt).toISOString(),
  };
}

/** Opens a stored credential; throws SECRET_UNREADABLE when the install key changed since it was sealed. */
export function openCredential(key: InstallKey, stored: StoredCredential): OpenCredential {
  return {
    vendor: stored.vendor,
    kind: stored.kind,
    label: stored.label,
    secret: openSecret(key, stored.sealed_secret, contextOf(stored.user_id, stored.vendor, 'secret')),
    ...(stored.sealed_refresh !== null
      ? { refreshToken: openSecret(key, stored.sealed_refresh, contextOf(stored.user_id, stored.vendor, 'refresh')) }
      : {}),
    ...(stored.expires_at !== null ? { expiresAt: Date.parse(stored.expires_at) } : {}),
  };
}
