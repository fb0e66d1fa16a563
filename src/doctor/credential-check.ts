import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { ambientFiles } from '../credentials/provider-matrix.js';
import { credentialVendorOf } from '../shared/providers/credential-vendors.js';
import type { ProviderId } from '../shared/providers/registry.js';
import { passed, problem, type CheckResult } from './check.js';
import { isCliProvider, keyEnv } from './provider-facts.js';

/**
 * Whether a provider has a credential, and where it comes from: the config key, an environment
 * variable, a credential a user stored (sealed in the database, per vendor), or the CLI's own
 * login file. Only where: a secret is never read out, let alone printed.
 */

/** Stored credentials per vendor (how many users connected one), or why the database could not say. */
export type StoredCredentials = { ok: true; users: ReadonlyMap<string, number> } | { ok: false; why: string };

export interface CredentialInput {
  provider: ProviderId;
  env: NodeJS.ProcessEnv;
  /** `assistants.<id>.apiKey` of config.yaml. */
  configKey: string | undefined;
  /** Undefined when there is no database yet. */
  stored: StoredCredentials | undefined;
  /** The server the provider is pointed at, when one is configured (a local server may need no key). */
  baseUrl: string | undefined;
  isDefault: boolean;
}

export function checkCredential(input: CredentialInput): CheckResult {
  const { provider, env } = input;
  const id = `provider.${provider}.credential`;
  const name = `${provider} credential`;
  const vendor = credentialVendorOf(provider);
  const found: string[] = [];
  if (input.configKey !== undefined && input.configKey.trim() !== '') found.push(`assistants.${provider}.apiKey in config.yaml`);
  for (const variable of keyEnv[provider]) if (env[variable]?.trim()) found.push(variable);
  const users = input.stored?.ok ? (input.stored.users.get(vendor) ?? 0) : 0;
  if (users > 0) found.push(`a stored ${vendor} credential (${users} user${users === 1 ? '' : 's'})`);
  const home = env.HOME?.trim() || homedir();
  const ownLogin = ambientFiles[provider]?.(env, home) ?? [];
  const loginFile = ownLogin.find((file) => existsSync(file));
  if (loginFile !== undefined) found.push(`its own login (${loginFile})`);
  if (found.length > 0) return passed(id, name, `found in ${found.join(', ')}`);

  const unread = input.stored?.ok === false ? `; stored credentials not read (${input.stored.why})` : '';
  if (!isCliProvider(provider) && input.baseUrl !== undefined) {
    return passed(id, name, `no key: fine for a server that needs none (${input.baseUrl})${unread}`);
  }
  const looked = [`assistants.${provider}.apiKey`, ...keyEnv[provider], `stored ${vendor} credentials`];
  if (ownLogin.length > 0) looked.push(`its own login (${ownLogin.join(' or ')})`);
  const asDefault = input.isDefault ? ` (${provider} is the default assistant)` : '';
  const ownLoginNext = isCliProvider(provider) ? `, or log in with ${provider} itself` : '';
  // A CLI may keep a login where Cairn cannot see it (a system keychain): only ever a warning.
  const serious = input.isDefault && !isCliProvider(provider);
  return problem(
    serious,
    id,
    name,
    `none found (looked at ${looked.join(', ')})${asDefault}${unread}`,
    `set ${keyEnv[provider][0]} for cairn serve, add assistants.${provider}.apiKey to config.yaml, connect a key for ${vendor} (PUT /api/auth/providers/${vendor})${ownLoginNext}`,
  );
}
