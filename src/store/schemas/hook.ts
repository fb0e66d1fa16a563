import { z } from 'zod';

/**
 * How a hook's sender signs a delivery (docs/webhooks.md): `github` is GitHub's
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` with the delivery id in
 * `X-GitHub-Delivery`; `generic` signs `<unix seconds>.<raw body>` and names the time in
 * `X-Cairn-Timestamp`, so a delivery older than 5 minutes is refused.
 */
export const hookSignatureSchema = z.enum(['github', 'generic']);
export type HookSignature = z.infer<typeof hookSignatureSchema>;

/**
 * A GitHub hook's trigger settings (docs/github.md): which GitHub API it answers through, which
 * workflows `/cairn run <workflow>` may start, which added labels start the hook's workflow,
 * whether a newly opened issue does, and whether a commenter without write permission gets one
 * polite reply. The token is kept apart, sealed (StoredHook.sealed_github_token).
 */
export const githubTriggerSchema = z.object({
  api_url: z.string().describe('The GitHub REST API it calls (https://api.github.com, or a GitHub Enterprise Server’s /api/v3)'),
  workflows: z.array(z.string()).describe('The workflows `/cairn run <workflow>` may start; the hook’s own workflow is always one'),
  labels: z.array(z.string()).describe('Adding one of these labels to an issue or pull request starts the hook’s workflow'),
  on_issue_opened: z.boolean().describe('Whether a newly opened issue starts the hook’s workflow'),
  deny_reply: z.boolean().describe('Whether a commenter without write permission gets one polite reply (else none)'),
  dashboard_url: z
    .string()
    .nullable()
    .describe('Where people reach the dashboard (https://cairn.example.com), for the link in a status comment; null: the address the delivery came to'),
  app: z
    .object({ app_id: z.number().int(), installation_id: z.number().int() })
    .nullable()
    .optional()
    .describe('A hook that signs in as a GitHub App: the App and its installation (its private key is sealed, never shown); null or absent: a token'),
});
export type GitHubTrigger = z.infer<typeof githubTriggerSchema>;

/** A stored hook as the API shows it: never its secret. */
export const hookSchema = z.object({
  id: z.string(),
  name: z.string().describe('Unique; the hook is called at POST /api/hooks/<name>'),
  workflow_name: z.string(),
  codebase_id: z.string().nullable().describe('The registered codebase its runs work on; null: none'),
  signature: hookSignatureSchema,
  inputs: z.record(z.string(), z.string()).describe('Workflow input -> path into the JSON payload ($.a.b, $.list[0])'),
  github: githubTriggerSchema.nullable().describe('A GitHub hook’s trigger settings (docs/github.md); null: a plain webhook'),
  created_at: z.string(),
});
export type Hook = z.infer<typeof hookSchema>;

/**
 * The row the store keeps: the hook and its secret, sealed with the install key (hooks/hook-secret.ts);
 * a GitHub hook's token too (github/github-token.ts), null for a plain webhook.
 */
export type StoredHook = Hook & { sealed_secret: string; sealed_github_token: string | null };

/** One delivery, unique per hook: it started one run, or (a GitHub hook's) it was ignored for a reason. */
export const hookDeliverySchema = z.object({
  hook_id: z.string(),
  delivery_id: z.string(),
  run_id: z.string().nullable().describe('The run it started; null when it was ignored'),
  ignored: z.string().nullable().describe('Why a GitHub hook acknowledged it and started nothing; null when it started a run'),
  received_at: z.string(),
  status_comment_id: z.number().int().nullable().describe('A GitHub hook’s run: the id of its status comment on the issue; null: none made yet, or not a GitHub run'),
  status_shown: z.string().nullable().describe('A GitHub hook’s run: the run status its status comment last showed'),
});
export type HookDelivery = z.infer<typeof hookDeliverySchema>;
