import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { CairnError } from '../../shared/errors.js';
import { subscriptionVendors, type SubscriptionVendor } from '../../shared/providers/credential-vendors.js';

/**
 * Where each subscription vendor's OAuth server is, and how Cairn identifies itself there.
 * Built-in defaults are the vendors' public CLI clients; each key can be overridden per vendor
 * in `$CAIRN_HOME/config.yaml` (`oauth.<vendor>.<key>`) or by an environment variable
 * `CAIRN_OAUTH_<VENDOR>_<KEY>` (`CAIRN_OAUTH_GITHUB_COPILOT_TOKEN_URL`); the config file wins,
 * as for the other provider settings.
 *
 * `manual`: authorization code with PKCE (S256); the user opens the URL, authorizes, and pastes
 * the code the vendor shows (or the whole redirect URL) back. `device`: RFC 8628 device
 * authorization; the user enters a code at the verification URI while Cairn polls.
 */

const urlSchema = z.url({ protocol: /^https?$/ });

const overrideSchema = z.strictObject({
  clientId: z.string().trim().min(1).optional(),
  scope: z.string().trim().optional(),
  authorizeUrl: urlSchema.optional(),
  tokenUrl: urlSchema.optional(),
  deviceCodeUrl: urlSchema.optional(),
  redirectUri: urlSchema.optional(),
});
type Override = z.infer<typeof overrideSchema>;

export interface OAuthEndpoints {
  vendor: SubscriptionVendor;
  mode: 'manual' | 'device';
  clientId: string;
  scope: string;
  tokenUrl: string;
  /** How the token endpoint takes its parameters: a form (RFC 6749) or a JSON body (Anthropic's). */
  tokenBody: 'form' | 'json';
  authorizeUrl?: string;
  redirectUri?: string;
  deviceCodeUrl?: string;
}

export type OAuthEndpointTable = Readonly<Record<SubscriptionVendor, OAuthEndpoints>>;

export const DEFAULT_OAUTH_ENDPOINTS: OAuthEndpointTable = {
  anthropic: {
    vendor: 'anthropic',
    mode: 'manual',
    clientId: '9d1c250a-e61b-44d9-88ed-5944d1962f5e',
    scope: 'org:create_api_key user:profile user:inference',
    authorizeUrl: 'https://claude.ai/oauth/authorize',
    tokenUrl: 'https://console.anthropic.com/v1/oauth/token',
    redirectUri: 'https://console.anthropic.com/oauth/code/callback',
    tokenBody: 'json',
  },
  openai: {
    vendor: 'openai',
    mode: 'manual',
    clientId: 'app_EMoamEEZ73f0CkXaXp7hrann',
    scope: 'openid profile email offline_access',
    authorizeUrl: 'https://auth.openai.com/oauth/authorize',
    tokenUrl: 'https://auth.openai.com/oauth/token',
    redirectUri: 'http://localhost:1455/auth/callback',
    tokenBody: 'form',
  },
  'github-copilot': {
    vendor: 'github-copilot',
    mode: 'device',
    clientId: 'Iv1.b507a08c87ecfe98',
    scope: 'read:user',
    deviceCodeUrl: 'https://github.com/login/device/code',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    tokenBody: 'form',
  },
};

const KEYS = ['clientId', 'scope', 'authorizeUrl', 'tokenUrl', 'deviceCodeUrl', 'redirectUri'] as const;
const envName = (vendor: string, key: string) =>
  `CAIRN_OAUTH_${vendor.toUpperCase().replace(/-/g, '_')}_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** The environment variable that overrides one endpoint key (for the docs and errors). */
export const oauthEnvName = envName;

function fromEnv(vendor: string, env: NodeJS.ProcessEnv): Override {
  const raw: Record<string, string> = {};
  for (const key of KEYS) {
    const value = env[envName(vendor, key)]?.trim();
    if (value) raw[key] = value;
  }
  const parsed = overrideSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CairnError('CONFIG_INVALID', `${envName(vendor, String(issue?.path[0]))}: ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

function fromConfigFile(file: string): Partial<Record<string, Override>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (err) {
    throw new CairnError('CONFIG_INVALID', `${file}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const oauth = (document as { oauth?: unknown } | null)?.oauth;
  if (oauth === undefined || oauth === null) return {};
  const parsed = z.partialRecord(z.enum(subscriptionVendors), overrideSchema).safeParse(oauth);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CairnError('CONFIG_INVALID', `${file}: oauth.${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

const defined = (o: Override): Override => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The endpoints of every subscription vendor: built-in defaults, then the environment, then the config file. */
export function loadOAuthEndpoints(configFile: string, env: NodeJS.ProcessEnv): OAuthEndpointTable {
  const file = fromConfigFile(configFile);
  const table = {} as Record<SubscriptionVendor, OAuthEndpoints>;
  for (const vendor of subscriptionVendors) {
    table[vendor] = { ...DEFAULT_OAUTH_ENDPOINTS[vendor], ...defined(fromEnv(vendor, env)), ...defined(file[vendor] ?? {}) };
  }
  return table;
}
