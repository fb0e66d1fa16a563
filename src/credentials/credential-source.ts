import { CairnError } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { isSubscriptionVendor } from '../shared/providers/credential-vendors.js';
import type { InstallKey } from '../shared/secrets/install-key.js';
import type { CredentialStore } from '../store/credentials.js';
import { openCredential, sealCredential, type OpenCredential } from './credential-seal.js';
import { OAuthCallError, refreshTokens } from './oauth/oauth-client.js';
import { loadOAuthEndpoints, type OAuthEndpointTable } from './oauth/oauth-endpoints.js';

/**
 * The credential a user's provider call is made with, opened for that call only. An OAuth
 * access token that ends within REFRESH_MARGIN_MS is refreshed first (and the new tokens stored
 * sealed, unless another process refreshed it meanwhile, whose tokens are then used).
 */

/** A token is refreshed when it has less than this left. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export type CredentialSource = (userId: string, vendor: string) => Promise<OpenCredential | undefined>;

export interface CredentialSourceDeps {
  store: CredentialStore;
  installKey: () => InstallKey;
  endpoints: () => OAuthEndpointTable;
  now: () => number;
  log: Logger;
}

export function createCredentialSource(deps: CredentialSourceDeps): CredentialSource {
  return async (userId, vendor) => {
    for (let tries = 0; tries < 3; tries++) {
      const stored = await deps.store.getCredential(userId, vendor);
      if (!stored) return undefined;
      const credential = openCredential(deps.installKey(), stored);
      const expiresAt = credential.expiresAt;
      if (credential.kind !== 'oauth' || expiresAt === undefined || expiresAt - deps.now() > REFRESH_MARGIN_MS) return credential;
      if (credential.refreshToken === undefined || !isSubscriptionVendor(vendor)) return usableUntilExpiry(credential, deps.now(), 'it has no refresh token');
      let tokens;
      try {
        tokens = await refreshTokens(deps.endpoints()[vendor], credential.refreshToken, deps.now);
      } catch (err) {
        if (!(err instanceof OAuthCallError)) throw err;
        deps.log.warn({ userId, vendor, error: err.message }, 'credentials.refresh_failed');
        return usableUntilExpiry(credential, deps.now(), `its refresh failed: ${err.message}`);
      }
      const next: OpenCredential = {
        ...credential,
        secret: tokens.accessToken,
        ...(tokens.refreshToken !== undefined ? { refreshToken: tokens.refreshToken } : {}),
        ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
      };
      if (tokens.expiresAt === undefined) delete next.expiresAt;
      if (await deps.store.replaceCredentialIf(stored.sealed_secret, sealCredential(deps.installKey(), userId, next))) {
        deps.log.info({ userId, vendor }, 'credentials.refreshed');
        return next;
      }
      // Someone refreshed or reconnected meanwhile: read theirs.
    }
    throw new CairnError('CREDENTIAL_UNUSABLE', `The ${vendor} login keeps changing while it is refreshed; try again`);
  };
}

function usableUntilExpiry(credential: OpenCredential, now: number, why: string): OpenCredential {
  if (credential.expiresAt !== undefined && credential.expiresAt > now) return credential;
  throw new CairnError('CREDENTIAL_UNUSABLE', `The ${credential.vendor} subscription login has expired and ${why}; connect it again`);
}

/** The source a supervisor's runs use: its store, the install key, and the OAuth endpoints of its home and environment. */
export function credentialSourceFor(
  store: CredentialStore,
  settings: { installKey: () => InstallKey; paths: { config: string } },
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): CredentialSource {
  let endpoints: OAuthEndpointTable | undefined;
  return createCredentialSource({
    store,
    installKey: settings.installKey,
    endpoints: () => (endpoints ??= loadOAuthEndpoints(settings.paths.config, env)),
    now: Date.now,
    log,
  });
}
