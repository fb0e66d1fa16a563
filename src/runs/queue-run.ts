import { randomUUID } from 'node:crypto';
import type { Run } from '../store/schemas/run.js';
import type { RunMetadata } from '../store/schemas/run-metadata.js';
import { resolveRunModelBindings } from '../store/schemas/model-bindings.js';
import type { RunAttachment } from '../store/schemas/run-attachment.js';
import type { RunOverrides } from '../store/schemas/run-overrides.js';
import type { NewRun, Store } from '../store/store.js';
import type { InputValue } from '../workflow/schema/input-types.js';
import { sealRunEnv } from './run-env.js';
import { runConcurrencyOf } from '../workflow/schema/concurrency.js';
import { newRunLevelEvent } from '../store/schemas/run-level-events.js';
import type { InstallKey } from '../shared/secrets/install-key.js';
import type { WorkflowEntry } from '../workflow/catalog/discover-workflows.js';
import { newConversationId, newConversationRowId, newWorkerConversationId } from '../shared/conversation-id.js';

export interface QueueRunRequest {
  entry: WorkflowEntry;
  /** Checked and defaulted already (workflow/schema/run-inputs.ts). */
  inputs: Record<string, InputValue>;
  message: string;
  workingPath: string | null;
  /** The conversation to attach the run to (created as `web` if unknown); omitted: a new hidden worker conversation. */
  conversationId?: string | undefined;
  /** The worker conversation's id form: `web-<ms>-<6>` (the run route) or `web-worker-<ms>-<6>` (chat dispatch). */
  workerIdForm?: 'web' | 'web-worker';
  /** From `pickRunOverrides` (config.env reduced to its names). */
  overrides?: RunOverrides | undefined;
  /** The request's `config.env` values: sealed into `metadata.sealed_env` with the install key. */
  env?: { values: Readonly<Record<string, string>>; key: () => InstallKey } | undefined;
  /** The run's id, when the caller had to know it first (attachments are placed in its folder before it exists). */
  runId?: string;
  /** Files sent with the request, already in the run's `$ATTACHMENTS_DIR`. */
  attachments?: readonly RunAttachment[];
  /** A chat that dispatched the run: its result is posted there when the run ends. */
  parentConversationId?: string | undefined;
  /** The codebase the run works on (its worktree is made when the run starts); also the new conversation's. */
  codebaseId?: string | null;
  /** The request's USD budget (over the workflow's `budget.usd`). */
  budgetUsd?: number;
  /** The branch asked for the run's worktree (checked already); omitted: Cairn names one. */
  branch?: string;
  /** The request's base branch (`baseBranch`, checked to exist already): `$BASE_BRANCH`, and the start of a new worktree branch. */
  baseBranch?: string | undefined;
  /** A child run: what its parent resolved (`$BASE_BRANCH`, `$STATE_DIR`), kept so that the child works against the same. */
  inherited?: Pick<RunMetadata, 'base_branch' | 'state_dir'> | undefined;
  /** Keys of the project's config file Cairn does not read: shown with the run's parse warnings. */
  configWarnings?: readonly string[] | undefined;
  /** The identity of the request (X-Service-User), recorded on the run and a conversation it creates. */
  userId?: string | null;
  /**
   * A child run of a `workflow:` node: its parent run, the parent's node path and its index among
   * the node's children (0 for a single child). Queued again, the child there is is returned.
   */
  parent?: { runId: string; nodeId: string; childIndex: number };
  /** A child run: the runs above it with a budget, nearest first (their budgets cover its spend). */
  budgetScope?: readonly string[];
  /** A schedule's run: the schedule and the due time it was started for (metadata.schedule). */
  schedule?: { id: string; name: string; due_at: string; manual: boolean };
  /** A webhook's run: the hook and the delivery that started it (metadata.hook). */
  hook?: { id: string; name: string; delivery_id: string };
  clock: () => number;
}

/**
 * Queues a run of a checked workflow: the pending run, its `start_run` job and, when missing, its
 * conversation, in one transaction. The one way runs are created, for the run route and for
 * `/workflow run` in chat alike. The supervisor does the rest.
 */
export async function queueRun(store: Store, request: QueueRunRequest): Promise<Run> {
  return store.createRun(newRunOf(request));
}

/** The run `queueRun` creates, for a caller that creates it in a transaction of its own (a schedule's fire). */
export function newRunOf(request: QueueRunRequest): NewRun {
  const { entry } = request;
  const runId = request.runId ?? randomUUID();
  const metadata: RunMetadata = { workflow_source: entry.source, workflow_filename: entry.filename };
  if (request.overrides) metadata.overrides = request.overrides;
  if (request.env && Object.keys(request.env.values).length > 0) {
    metadata.sealed_env = sealRunEnv(request.env.key(), runId, request.env.values);
  }
  const bindings = resolveRunModelBindings(request.overrides);
  if (bindings) metadata.model_bindings = bindings;
  if (request.attachments?.length) metadata.attachments = [...request.attachments];
  const warnings = [...(entry.parseWarnings ?? []), ...(request.configWarnings ?? [])];
  if (warnings.length > 0) metadata.parse_warnings = warnings;
  if (request.parentConversationId) metadata.parent_conversation_id = request.parentConversationId;
  const budgetUsd = request.budgetUsd ?? entry.workflow.budget?.usd;
  if (budgetUsd !== undefined) metadata.budget = { usd: budgetUsd };
  if (request.budgetScope?.length) metadata.budget_scope = [...request.budgetScope];
  if (request.branch !== undefined || request.baseBranch !== undefined) {
    metadata.isolation = {
      ...(request.branch !== undefined ? { branch: request.branch } : {}),
      ...(request.baseBranch !== undefined ? { base: request.baseBranch } : {}),
    };
  }
  if (request.inherited?.base_branch) metadata.base_branch = request.inherited.base_branch;
  if (request.inherited?.state_dir) metadata.state_dir = request.inherited.state_dir;
  if (request.parent) Object.assign(metadata, { parent_node_id: request.parent.nodeId, child_index: request.parent.childIndex });
  if (request.schedule) Object.assign(metadata, { schedule: request.schedule });
  if (request.hook) Object.assign(metadata, { hook: request.hook });
  // The key is computed once, here; the store decides the run's place by it (rules/run-concurrency.ts).
  const concurrency = entry.workflow.concurrency;
  if (concurrency) {
    metadata.concurrency = runConcurrencyOf(entry.workflow.name, concurrency, { inputs: request.inputs, codebaseId: request.codebaseId ?? null });
  }
  const attached = request.conversationId !== undefined;
  const now = request.clock();
  const conversationId =
    request.conversationId ?? (request.workerIdForm === 'web-worker' ? newWorkerConversationId(now) : newConversationId(now));
  return {
    id: runId,
    workflowName: entry.workflow.name,
    conversationId,
    workingPath: request.workingPath,
    codebaseId: request.codebaseId ?? null,
    userMessage: request.message,
    inputs: request.inputs,
    metadata,
    definition: entry.workflow,
    userId: request.userId ?? null,
    ...(request.parent ? { parent: request.parent } : {}),
    events: [newRunLevelEvent({ id: runId, conversation_id: conversationId }, 'workflow_queued', { workflowName: entry.workflow.name })],
    conversation: {
      id: newConversationRowId(),
      platform_type: 'web',
      platform_conversation_id: conversationId,
      codebase_id: request.codebaseId ?? null,
      // A run's own thread is hidden from the conversation list; a named one is the user's.
      hidden: !attached,
      user_id: request.userId ?? null,
    },
  };
}
