import { z } from 'zod';

/**
 * How a hook's sender signs a delivery (docs/webhooks.md): `github` is GitHub's
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` with the delivery id in
 * `X-GitHub-Delivery`; `generic` signs `<unix seconds>.<raw body>` and names the time in
 * `X-Cairn-Timestamp`, so a delivery older than 5 minutes is refused.
 */
export const hookSignatureSchema = z.enum(['github', 'generic']);
export type HookSignature = z.infer<typeof hookSignatureSchema>;

/** A stored hook as the API shows it: never its secret. */
export const hookSchema = z.object({
  id: z.string(),
  name: z.string().describe('Unique; the hook is called at POST /api/hooks/<name>'),
  workflow_name: z.string(),
  codebase_id: z.string().nullable().describe('The registered codebase its runs work on; null: none'),
  signature: hookSignatureSchema,
  inputs: z.record(z.string(), z.string()).describe('Workflow input -> path into the JSON payload ($.a.b, $.list[0])'),
  created_at: z.string(),
});
export type Hook = z.infer<typeof hookSchema>;

/** The row the store keeps: the hook and its secret, sealed with the install key (hooks/hook-secret.ts). */
export type StoredHook = Hook & { sealed_secret: string };

/** One admitted delivery: its id is unique per hook, and it started one run. */
export const hookDeliverySchema = z.object({
  hook_id: z.string(),
  delivery_id: z.string(),
  run_id: z.string(),
  received_at: z.string(),
});
export type HookDelivery = z.infer<typeof hookDeliverySchema>;
