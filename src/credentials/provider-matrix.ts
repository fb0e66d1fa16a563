import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderSettings } from '../shared/providers/provider-settings.js';
import {
  credentialVendorOf,
  getCredentialVendor,
  isSubscriptionVendor,
  listCredentialVendors,
  subscriptionVendors,
} from '../shared/providers/credential-vendors.js';
import { listProviders, type ProviderId } from '../shared/providers/registry.js';

/**
 * What `GET /api/auth/providers` reports per agent: which vendor's credential it calls with,
 * whether the user connected one, and what the server has of its own: a key in its environment
 * (`installEnv`) or the agent CLI's own login (`ambientConfigured`). Only presence is reported,
 * never a value or a path.
 */

/** Where each agent CLI keeps its own login, relative to the server user's home (also read by `cairn doctor`). */
export const ambientFiles: Partial<Record<ProviderId, (env: NodeJS.ProcessEnv, home: string) => string[]>> = {
  claude: (env, home) => [join(env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'), '.credentials.json')],
  codex: (env, home) => [join(env.CODEX_HOME ?? join(home, '.codex'), 'auth.json')],
  gemini: (_env, home) => [join(home, '.gemini', 'oauth_creds.json')],
  copilot: (env, home) => [
    join(env.COPILOT_HOME ?? join(home, '.copilot'), 'config.json'),
    join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'github-copilot', 'apps.json'),
  ],
  opencode: (env, home) => [join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'opencode', 'auth.json')],
  pi: (_env, home) => [join(home, '.pi', 'agent', 'auth.json')],
};

export interface MatrixInput {
  env: NodeJS.ProcessEnv;
  providers: ProviderSettings;
  /** The vendors the user has connected. */
  connected: ReadonlySet<string>;
  /** Providers with an adapter in this build. */
  withAdapter: readonly string[];
}

export function hasInstallEnvKey(vendor: string, env: NodeJS.ProcessEnv): boolean {
  return (getCredentialVendor(vendor)?.installEnv ?? []).some((name) => (env[name]?.trim() ?? '') !== '');
}

export function buildAgentMatrix(input: MatrixInput) {
  const home = input.env.HOME?.trim() || homedir();
  return listProviders().map((provider) => {
    const vendor = credentialVendorOf(provider.id);
    const files = ambientFiles[provider.id]?.(input.env, home);
    const ambient = files === undefined ? undefined : files.some((file) => existsSync(file));
    const credential = {
      vendor,
      displayName: getCredentialVendor(vendor)?.displayName ?? vendor,
      kinds: isSubscriptionVendor(vendor) ? (['api_key', 'oauth'] as const) : (['api_key'] as const),
      connected: input.connected.has(vendor),
      subscriptionAvailable: isSubscriptionVendor(vendor),
      installEnv: hasInstallEnvKey(vendor, input.env),
      ...(ambient !== undefined ? { ambientConfigured: ambient } : {}),
    };
    const ready =
      input.withAdapter.includes(provider.id) &&
      (credential.connected || credential.installEnv || ambient === true || input.providers.configured[provider.id] === true);
    return {
      id: provider.id,
      displayName: provider.displayName,
      catalog: provider.catalog,
      ready,
      credentials: [{ ...credential, kinds: [...credential.kinds] }],
    };
  });
}

export const listAvailableVendors = (): string[] => listCredentialVendors().map((v) => v.id);
export const listSubscriptionVendors = (): string[] => [...subscriptionVendors];
