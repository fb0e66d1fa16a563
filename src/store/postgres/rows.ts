import type { Codebase, EnvScan, IsolationEnvironment } from '../schemas/codebase.js';
import type { Conversation } from '../schemas/conversation.js';
import type { Row } from './session.js';

/**
 * Row → object conversions. The PostgreSQL columns keep SQLite's shapes (JSON as text, booleans
 * as 0/1, ISO timestamps as text), so runs, jobs, events and heartbeats read back through the
 * same conversions as SQLite's; the rest are here.
 */
export { RUN_COLUMNS, toEvent, toHeartbeat, toJob, toRun, toRunEvent } from '../rows.js';

export function toCodebase(row: Row): Codebase {
  return {
    id: row.id as string,
    name: row.name as string,
    repository_url: (row.repository_url as string | null) ?? null,
    default_cwd: row.default_cwd as string,
    default_branch: (row.default_branch as string | null) ?? null,
    kind: row.kind as Codebase['kind'],
    managed: row.managed === 1,
    allow_env_keys: row.allow_env_keys === 1,
    env_scan: JSON.parse(row.env_scan as string) as EnvScan,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

export function toIsolationEnvironment(row: Row): IsolationEnvironment {
  return {
    id: row.id as string,
    codebase_id: row.codebase_id as string,
    workflow_type: row.workflow_type as string,
    workflow_id: row.workflow_id as string,
    provider: row.provider as string,
    working_path: row.working_path as string,
    branch_name: (row.branch_name as string | null) ?? null,
    created_by_platform: (row.created_by_platform as string | null) ?? null,
    metadata: JSON.parse(row.metadata as string) as IsolationEnvironment['metadata'],
    status: row.status as IsolationEnvironment['status'],
    locked_by_run: (row.locked_by_run as string | null) ?? null,
    lock_owner: (row.lock_owner as string | null) ?? null,
    lock_expires_at: (row.lock_expires_at as string | null) ?? null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

export function toConversation(row: Row): Conversation {
  return {
    id: row.id as string,
    platform_type: row.platform_type as string,
    platform_conversation_id: row.platform_conversation_id as string,
    ai_assistant_type: row.ai_assistant_type as string,
    codebase_id: (row.codebase_id as string | null) ?? null,
    cwd: (row.cwd as string | null) ?? null,
    isolation_env_id: (row.isolation_env_id as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    hidden: row.hidden === 1,
    deleted_at: (row.deleted_at as string | null) ?? null,
    last_activity_at: row.last_activity_at as string,
    user_id: (row.user_id as string | null) ?? null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

/** The node count SQLite reads with json_array_length(definition, '$.nodes'). */
export function nodeCountOf(definition: unknown): number {
  const nodes = (definition as { nodes?: unknown } | null)?.nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
}
