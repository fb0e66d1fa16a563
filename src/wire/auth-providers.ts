import { z } from 'zod';

/** Wire schemas of `/api/auth/providers*`: metadata only, never a secret value. */

/** No control characters (NUL, newlines ...): a key goes into a child's environment, a label into lists. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const printable = (what: string) => [(value: string) => !CONTROL.test(value), { error: `${what} holds control characters (NUL, newlines ...)` }] as const;

export const vendorParamsSchema = z.object({
  provider: z.string().min(1).max(100).describe('A credential vendor id (anthropic, openai, github-copilot, ...); legacy ids claude, codex and copilot are accepted'),
});

export const connectKeyBodySchema = z.strictObject({
  apiKey: z
    .string()
    .trim()
    .min(1, 'apiKey is blank')
    .max(8192, 'apiKey is longer than 8192 characters')
    .refine(...printable('apiKey'))
    .describe('The API key; stored sealed with the install key, never returned'),
  label: z
    .string()
    .trim()
    .max(200, 'label is longer than 200 characters')
    .refine(...printable('label'))
    .optional()
    .describe('A name to tell the key apart (default: "<vendor> API key")'),
});

export const credentialConnectionSchema = z
  .object({
    provider: z.string().describe('The vendor id'),
    kind: z.enum(['api_key', 'oauth']).describe('api_key: a connected key; oauth: a subscription login'),
    label: z.string(),
  })
  .meta({ id: 'CredentialConnection' });

export const connectKeyResponseSchema = z.object({
  success: z.literal(true),
  provider: z.string(),
  kind: z.literal('api_key'),
  label: z.string(),
});

export const disconnectResponseSchema = z.object({ success: z.literal(true) });

const agentCredentialSchema = z.object({
  vendor: z.string(),
  displayName: z.string(),
  kinds: z.array(z.enum(['api_key', 'oauth'])).describe('How a credential for this vendor can be connected'),
  connected: z.boolean().describe('The user has connected one'),
  subscriptionAvailable: z.boolean(),
  installEnv: z.boolean().describe('The server’s environment holds a key for this vendor (the value is never shown)'),
  ambientConfigured: z.boolean().optional().describe('The agent’s CLI is logged in on the server by itself (its own credentials file exists)'),
});

export const agentMatrixEntrySchema = z.object({
  id: z.string(),
  displayName: z.string(),
  catalog: z.enum(['static', 'dynamic']),
  ready: z.boolean().describe('Cairn can call it for this user: an adapter, and a connected, environment, configured or ambient credential'),
  credentials: z.array(agentCredentialSchema),
});

export const authProvidersResponseSchema = z.object({
  enabled: z.boolean().describe('Credentials can be stored (the install key is available)'),
  connections: z.array(credentialConnectionSchema),
  available: z.array(z.string()).describe('Every vendor an API key can be connected for'),
  subscriptionAvailable: z.array(z.string()).describe('The vendors with a subscription (OAuth) login'),
  agents: z.array(agentMatrixEntrySchema),
});

export const oauthStartResponseSchema = z.object({
  sessionId: z.string(),
  mode: z.enum(['manual', 'device']),
  url: z.string().optional().describe('manual: open it, authorize, then send the code shown in poll'),
  userCode: z.string().optional().describe('device: the code to enter at verificationUri'),
  verificationUri: z.string().optional(),
  verificationUriComplete: z.string().optional(),
  interval: z.number().optional().describe('device: seconds between polls'),
  expiresIn: z.number().describe('Seconds until the login expires'),
});

export const oauthPollBodySchema = z.strictObject({
  sessionId: z.string().min(1).max(200),
  code: z
    .string()
    .max(4096, 'code is longer than 4096 characters')
    .refine(...printable('code'))
    .optional()
    .describe('manual: the pasted code (or the whole redirect URL); sent once'),
});

export const oauthPollResponseSchema = z.object({
  status: z.enum(['pending', 'connected', 'error']),
  detail: z.string().optional(),
});
