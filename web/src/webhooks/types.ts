/** A webhook and its deliveries as `/api/hooks` answers them (src/wire/hooks.ts): never its secret, which no answer holds. */

export interface Hook {
  id: string;
  name: string;
  workflow_name: string;
  codebase_id: string | null;
  signature: 'github' | 'generic';
  /** Workflow input -> path into the delivery's JSON payload. */
  inputs: Record<string, string>;
  created_at: string;
}

export interface HookDelivery {
  hook_id: string;
  delivery_id: string;
  run_id: string;
  received_at: string;
}

/** `GET /api/hooks/{name}/deliveries`: a page, newest first, and how many there are in all. */
export interface HookDeliveryPage {
  deliveries: HookDelivery[];
  total: number;
}

export const hookPath = (name: string) => `/api/hooks/${encodeURIComponent(name)}`;

/** The header each signature form is sent in (docs/webhooks.md). */
export const signatureHeaders: Record<Hook['signature'], string> = {
  github: 'X-Hub-Signature-256',
  generic: 'X-Cairn-Timestamp + X-Cairn-Signature',
};
