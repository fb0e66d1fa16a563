import { z } from 'zod';
import { hookDeliverySchema, hookSchema, hookSignatureSchema } from '../store/schemas/hook.js';

/** `/api/hooks`: the HTTP shapes, shared by the API and `cairn hooks`. */

/** Shorter secrets are refused: an HMAC key of a few characters can be guessed offline from one signed delivery. */
export const MIN_SECRET_LENGTH = 16;

export const hookNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'name: 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit');

const httpUrl = (field: string) =>
  z
    .string()
    .max(500)
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash;
      } catch {
        return false;
      }
    }, `${field}: an http(s) URL without credentials, query or fragment, such as https://api.github.com`);

const githubToken = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^[\x21-\x7e]+$/, 'github.token: printable characters without spaces (a fine-grained personal access token or an installation token)')
  .describe('The GitHub API token: a fine-grained personal access token, or an installation token; stored sealed, never shown back');

/** A GitHub App the hook signs in as: it makes its own installation tokens (docs/github.md). */
export const githubAppBodySchema = z
  .strictObject({
    appId: z.number().int().positive().describe('The App’s id (its settings page: “App ID”)'),
    installationId: z.number().int().positive().describe('The id of the App’s installation on the repository’s owner'),
    privateKey: z
      .string()
      .max(16_384)
      .regex(/^-----BEGIN (RSA )?PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END (RSA )?PRIVATE KEY-----\s*$/, 'github.app.privateKey: the App’s private key in PEM, as GitHub gave it (-----BEGIN RSA PRIVATE KEY----- …)')
      .describe('The App’s private key (PEM); stored sealed, never shown back'),
  })
  .describe('Sign in as a GitHub App instead of with a token: installation tokens are made as needed and replaced before they expire');

/** A GitHub hook's access and triggers (docs/github.md); the token or the App's key is sealed and never answered back. */
export const githubHookBodySchema = z.strictObject({
  token: githubToken.optional(),
  app: githubAppBodySchema.optional(),
  apiUrl: httpUrl('github.apiUrl').optional().describe('The GitHub REST API (default https://api.github.com; a GitHub Enterprise Server’s https://<host>/api/v3)'),
  workflows: z
    .array(z.string().trim().min(1).max(200))
    .max(50)
    .optional()
    .describe('Other workflows `/cairn run <workflow>` may start, besides the hook’s own'),
  labels: z.array(z.string().min(1).max(50)).max(50).optional().describe('Adding one of these labels starts the hook’s workflow'),
  onIssueOpened: z.boolean().optional().describe('Whether a newly opened issue starts the hook’s workflow (default false)'),
  denyReply: z.boolean().optional().describe('Whether a commenter without write permission gets one polite reply (default true)'),
  dashboardUrl: httpUrl('github.dashboardUrl').optional().describe('The dashboard’s address for the link in status comments (default: the address deliveries come to)'),
});
export type GitHubHookBody = z.infer<typeof githubHookBodySchema>;

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** `PUT /api/hooks/{name}/github-token`: a GitHub hook's new token (an installation token that expired, a rotated one). */
export const githubTokenBodySchema = z.strictObject({ token: githubToken });

export const createHookBodySchema = z.strictObject({
  name: hookNameSchema,
  workflow: z.string().trim().min(1).describe('The workflow to run, found as a run request finds it (the codebase’s project first)'),
  codebaseId: z.string().min(1).optional().describe('A registered codebase the runs work on (each in its own worktree)'),
  signature: hookSignatureSchema.describe('How the sender signs: github (X-Hub-Signature-256) or generic (X-Cairn-Timestamp + X-Cairn-Signature)'),
  secret: z
    .string()
    .min(MIN_SECRET_LENGTH, `secret: at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -hex 32)`)
    .max(1024)
    .describe('The HMAC key the sender signs with; stored sealed with the install key, never shown back'),
  inputs: z
    .record(z.string(), z.string())
    .optional()
    .describe('Workflow input -> path into the JSON payload: $ then .name and [n] steps, e.g. $.pull_request.number'),
  github: githubHookBodySchema
    .optional()
    .describe('Makes it a GitHub hook (signature github): runs start from `/cairn run` comments, labels or new issues, with status comments (docs/github.md)'),
});
export type CreateHookBody = z.infer<typeof createHookBodySchema>;

export const hookParamsSchema = z.object({ name: z.string().min(1).max(100).describe('The hook’s name') });


export const hookDeleteResponseSchema = z.object({ deleted: z.literal(true), name: z.string() });

export const deliveryResponseSchema = z.object({
  runId: z.string().nullable().describe('The run the delivery started; for a delivery sent again, the run its first sending started; null when it was ignored'),
  deliveryId: z.string(),
  duplicate: z.boolean().describe('True (status 200) when this delivery id was admitted before: no second run was started'),
  ignored: z
    .string()
    .optional()
    .describe('A GitHub hook’s delivery that starts nothing (status 200): why (an event it does not act on, no `/cairn run` command, a sender without write permission, its own comment)'),
});
export type DeliveryResponse = z.infer<typeof deliveryResponseSchema>;

/** A page of `GET /api/hooks/{name}/deliveries`: at most this many deliveries. */
export const HOOK_DELIVERIES_MAX_LIMIT = 100;
export const HOOK_DELIVERIES_DEFAULT_LIMIT = 20;

export const hookDeliveriesQuerySchema = z.object({
  limit: z.coerce
    .number({ error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .int({ error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .min(1, { error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .max(HOOK_DELIVERIES_MAX_LIMIT, { error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .optional()
    .describe(`Deliveries per page (default ${HOOK_DELIVERIES_DEFAULT_LIMIT}, at most ${HOOK_DELIVERIES_MAX_LIMIT})`),
  offset: z.coerce
    .number({ error: 'offset must be a non-negative integer' })
    .int({ error: 'offset must be a non-negative integer' })
    .min(0, { error: 'offset must be a non-negative integer' })
    .optional()
    .describe('Deliveries to skip, newest first (default 0)'),
});

export const hookDeliveryListResponseSchema = z.object({
  deliveries: z.array(hookDeliverySchema).describe('Newest first: each admitted delivery id, the run it started and when it was received'),
  total: z.number().int().nonnegative().describe('How many deliveries the hook has admitted in all'),
});
export type HookDeliveryList = z.infer<typeof hookDeliveryListResponseSchema>;

/** `GET /api/hooks?deliveries=N`: each hook with its latest N deliveries, read with the list (one request, no race with a removal). */
export const hookListQuerySchema = z.object({
  deliveries: z.coerce
    .number({ error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .int({ error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .min(0, { error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .max(HOOK_DELIVERIES_MAX_LIMIT, { error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .optional()
    .describe(`With each hook, its latest this many deliveries and their total (default 0: none)`),
});

export const hookListResponseSchema = z.object({
  hooks: z.array(
    hookSchema.extend({
      deliveries: hookDeliveryListResponseSchema.optional().describe('With ?deliveries=N: the hook’s latest N deliveries, newest first, and their total'),
    }),
  ),
});
