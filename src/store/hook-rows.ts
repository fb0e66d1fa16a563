import type { HookDelivery, StoredHook } from './schemas/hook.js';
import { githubTriggerSchema, hookSignatureSchema } from './schemas/hook.js';

/** Row → object conversions of the hook tables, shared by both backends (same column shapes). */
type Row = Record<string, unknown>;

export function toStoredHook(row: Row): StoredHook {
  return {
    id: String(row.id),
    name: String(row.name),
    workflow_name: String(row.workflow_name),
    codebase_id: row.codebase_id === null ? null : String(row.codebase_id),
    signature: hookSignatureSchema.parse(row.signature),
    inputs: JSON.parse(String(row.inputs)) as Record<string, string>,
    github: row.github === null || row.github === undefined ? null : githubTriggerSchema.parse(JSON.parse(String(row.github))),
    created_at: String(row.created_at),
    sealed_secret: String(row.sealed_secret),
    sealed_github_token: row.sealed_github_token === null || row.sealed_github_token === undefined ? null : String(row.sealed_github_token),
  };
}

export function toHookDelivery(row: Row): HookDelivery {
  return {
    hook_id: String(row.hook_id),
    delivery_id: String(row.delivery_id),
    run_id: row.run_id === null ? null : String(row.run_id),
    ignored: row.ignored === null || row.ignored === undefined ? null : String(row.ignored),
    received_at: String(row.received_at),
    status_comment_id: row.status_comment_id === null || row.status_comment_id === undefined ? null : Number(row.status_comment_id),
    status_shown: row.status_shown === null || row.status_shown === undefined ? null : String(row.status_shown),
  };
}
