/** A webhook and its deliveries as `/api/hooks` answers them (src/wire/hooks.ts): never its secret, which no answer holds. */

export interface Hook {
  id: string;
  name: string;
  workflow_name: string;
  codebase_id: string | null;
  signature: 'github' | 'generic';
  /** Workflow input -> path into the delivery's JSON payload. */
  inputs: Record<string, string>;
  /** A GitHub hook's trigger settings (docs/github.md); null: a plain webhook. */
  github: { api_url: string; workflows: string[]; labels: string[]; on_issue_opened: boolean; deny_reply: boolean } | null;
  created_at: string;
}

export interface HookDelivery {
  hook_id: string;
  delivery_id: string;
  /** Null when a GitHub hook acknowledged the delivery and started nothing (`ignored` says why). */
  run_id: string | null;
  ignored: string | null;
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
