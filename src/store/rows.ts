import type { Codebase, EnvScan, IsolationEnvironment } from './schemas/codebase.js';
import type { Conversation } from './schemas/conversation.js';
import type { Job } from './schemas/job.js';
import { parseRunMetadata } from './schemas/run-metadata.js';
import type { RunEvent, StreamEvent } from './schemas/event.js';
import type { Run } from './schemas/run.js';
import type { SupervisorHeartbeat } from './schemas/heartbeat.js';

/** Row → object conversions both backends share: JSON columns are stored as text. Trusted: only we write them. */
type Row = Record<string, unknown>;

/**
 * The columns toRun reads: lists of runs select these, never `*`, so a page does not read each
 * run's definition (megabytes for a 10,000-node workflow).
 */
export const RUN_COLUMNS = [
  'id', 'workflow_name', 'status', 'conversation_id', 'codebase_id', 'working_path', 'user_message', 'inputs',
  'metadata', 'error', 'parent_run_id', 'owner_id', 'lease_expires_at', 'created_at', 'started_at',
  'completed_at', 'last_activity_at', 'user_id',
] as const;

export function toRun(row: Row): Run {
  return {
    id: row.id as string,
    workflow_name: row.workflow_name as string,
    status: row.status as Run['status'],
    conversation_id: row.conversation_id as string,
    codebase_id: (row.codebase_id as string | null) ?? null,
    working_path: (row.working_path as string | null) ?? null,
    user_message: row.user_message as string,
    inputs: JSON.parse(row.inputs as string) as Run['inputs'],
    // Read through the one metadata schema: a key stored in another shape is named, not thrown.
    metadata: parseRunMetadata(JSON.parse(row.metadata as string)),
    error: (row.error as string | null) ?? null,
    parent_run_id: (row.parent_run_id as string | null) ?? null,
    user_id: (row.user_id as string | null | undefined) ?? null,
    owner_id: (row.owner_id as string | null) ?? null,
    lease_expires_at: (row.lease_expires_at as string | null) ?? null,
    created_at: row.created_at as string,
    started_at: (row.started_at as string | null) ?? null,
    completed_at: (row.completed_at as string | null) ?? null,
    last_activity_at: row.last_activity_at as string,
  };
}

export function toJob(row: Row): Job {
  return {
    id: row.id as number,
    kind: row.kind as Job['kind'],
    run_id: (row.run_id as string | null) ?? null,
    conversation_id: (row.conversation_id as string | null) ?? null,
    payload: JSON.parse(row.payload as string) as Job['payload'],
    status: row.status as Job['status'],
    lease_owner: (row.lease_owner as string | null) ?? null,
    lease_expires_at: (row.lease_expires_at as string | null) ?? null,
    created_at: row.created_at as string,
    result: (row.result as string | null) ?? null,
    attempts: row.attempts as number,
    last_error: (row.last_error as string | null) ?? null,
    not_before: (row.not_before as string | null) ?? null,
  };
}

/** A row with a run is a RunEvent; one without is a conversation's chat event. */
export function toEvent(row: Row): StreamEvent {
  return {
    seq: row.seq as number,
    run_id: (row.run_id as string | null) ?? null,
    conversation_id: row.conversation_id as string,
    event_type: row.event_type as string,
    step_name: (row.step_name as string | null) ?? null,
    data: JSON.parse(row.data as string) as RunEvent['data'],
    created_at: row.created_at as string,
  } as StreamEvent;
}

/** A row read by run id: always a run's event. */
export function toRunEvent(row: Row): RunEvent {
  return toEvent(row) as RunEvent;
}

export function toHeartbeat(row: Row): SupervisorHeartbeat {
  return {
    id: row.id as string,
    pid: row.pid as number,
    hostname: row.hostname as string,
    started_at: row.started_at as string,
    heartbeat_at: row.heartbeat_at as string,
    state: row.state as SupervisorHeartbeat['state'],
    concurrency: JSON.parse(row.concurrency as string) as SupervisorHeartbeat['concurrency'],
  };
}

/** Codebases, isolation environments and conversations: booleans are stored as 0/1 by both backends. */
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
