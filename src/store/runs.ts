import type { RunMetadata } from './schemas/run-metadata.js';
import type { NewRunEvent } from './schemas/event.js';
import type { Run, RunStatus } from './schemas/run.js';
import type { NewConversation } from './schemas/conversation.js';
import type { CancellingJobKind, GateDecisionJobKind, Job, JobKind } from './schemas/job.js';
import type { DashboardCounts, DashboardRun, RunCursor } from './schemas/run-page.js';

/**
 * Workflow runs: the API process creates and reads them; the supervisor owns them under a lease
 * and changes their state. Every change that also writes events is one atomic operation.
 */
export interface RunStore {
  // ── runs, as the API process sees them ──────────────────────────────────────────────
  /**
   * Inserts a pending run and its `start_run` job in one transaction, and the run's conversation
   * when `conversation` is given and none has its platform id yet.
   */
  createRun(run: NewRun): Promise<Run>;
  getRun(id: string): Promise<Run | undefined>;
  /** The child run a parent's node started at `childIndex` (0 for a single child), if any. */
  getChildRun(parentRunId: string, nodeId: string, childIndex: number): Promise<Run | undefined>;
  /** The child runs a parent's node started, by index. */
  listChildRuns(parentRunId: string, nodeId: string): Promise<Run[]>;
  /** Every descendant of the run (children, their children, ...) that has not ended, nearest first. */
  listOpenDescendants(runId: string): Promise<Run[]>;
  /** The definition snapshot taken when the run was created. */
  getRunDefinition(id: string): Promise<unknown>;
  listRuns(query: RunListQuery): Promise<Run[]>;
  /**
   * The runs not yet ended that a conversation started, newest first: its own, and those it
   * dispatched to a worker conversation (`metadata.parent_conversation_id`).
   */
  listOpenRunsOf(conversationId: string): Promise<Run[]>;
  /**
   * One page of runs, newest first, after `cursor` (the previous page's `nextCursor`). Pages are
   * keyed by the run's creation, so runs created while a client pages never shift later pages.
   */
  listRunPage(query: RunListQuery & { cursor?: RunCursor }): Promise<{ runs: Run[]; nextCursor: RunCursor | null }>;
  /** The dashboard's page: runs with their facts, how many match, and counts per status. */
  listDashboardRuns(query: DashboardRunQuery): Promise<{ runs: DashboardRun[]; total: number; counts: DashboardCounts }>;
  countRuns(status: RunStatus): Promise<number>;

  // ── run ownership and state, as the supervisor sees them ─────────────────────────────
  /**
   * Takes ownership of a run if it is in one of `fromStatuses` and is unowned, owned by
   * `ownerId`, owned by `previousOwner`, or its lease has expired; moves it to `status` and
   * appends `events`, all in one transaction. Returns undefined when the run was not taken. A
   * run moved to a terminal status loses its queued `wake_run` (as with transitionRun).
   */
  acquireRun(input: AcquireRun): Promise<Run | undefined>;
  /**
   * Extends the leases of the named non-terminal runs `ownerId` owns: the runs it still drives,
   * so that a run it owns but no longer drives is taken over once its lease runs out. Returns how many.
   */
  renewRunLeases(ownerId: string, runIds: readonly string[], leaseMs: number): Promise<number>;
  /**
   * Lets a running run `ownerId` drives sleep until `wakeAt` (ISO), in one transaction: ownership
   * is given up (the run stays `running`), and a `wake_run` job not claimable before `wakeAt`
   * is queued, replacing any older queued one. A sleeping run is not an orphan
   * (listRunsNotLeasedBy leaves it out); whoever claims the job drives it again. False (nothing
   * changed) when `ownerId` does not own the run, it is not running, or its cancel was requested.
   */
  sleepRun(input: { runId: string; ownerId: string; wakeAt: string }): Promise<boolean>;
  /** Gives up ownership of the named runs (shutdown), leaving their status as it is. */
  releaseRuns(ownerId: string, runIds: readonly string[]): Promise<void>;
  /**
   * Runs in `status` that `ownerId` does not hold under a live lease: unowned, owned by another,
   * or with an expired lease, its own included (candidates for take-over). Sleeping runs (unowned
   * with an open `wake_run` job, see sleepRun) are left out.
   */
  listRunsNotLeasedBy(ownerId: string, status: RunStatus): Promise<Run[]>;
  /**
   * When a cancel of the run was first requested, or null: its `cancel_run` (or `abandon_run`)
   * job claimed, else such a job queued and not claimed yet (a supervisor that died, or one
   * that takes the run over before its claim loop gets to the job). A run with a cancel request
   * is cancelled by whoever drives it next, never resumed or run on.
   */
  getCancelRequestedAt(runId: string): Promise<string | null>;
  /**
   * Applies a state change to a run the caller owns and appends `events`, in one transaction.
   * Throws RUN_INVALID_STATE if `ownerId` no longer owns the run.
   */
  transitionRun(input: TransitionRun): Promise<Run>;
  /**
   * Deletes a run in one of `fromStatuses` (terminal ones) with its events and jobs, in one
   * transaction. Returns false when there is no such run in such a status.
   */
  deleteRun(runId: string, fromStatuses: readonly RunStatus[]): Promise<boolean>;
  /**
   * Queues the answer to a paused run's gate (approve or reject), in one transaction with the
   * checks that make it apply: the run is paused, and no other answer to it is still open. So
   * two answers sent together are one accepted and one refused, never two jobs.
   */
  requestGateDecision(input: GateDecisionRequest): Promise<GateDecisionAnswer>;
  /**
   * Queues a job that carries a run on (a resume), in one transaction with the checks that make
   * it apply: the run is in one of `fromStatuses`, and no cancel or abandon of it is still open
   * (such a run ends cancelled whatever else is asked of it). A run that holds no place of its
   * concurrency key, under an `on_overlap: refuse` policy that has none free, is `refused`.
   */
  requestRunContinuation(input: RunContinuationRequest): Promise<RunContinuationAnswer>;
}

/** A cancel or abandon of a run, queued or under way and not carried out yet. */
export interface RunEnding {
  kind: CancellingJobKind;
  /** When it was asked for (ISO). */
  requestedAt: string;
}

export interface RunContinuationRequest {
  runId: string;
  kind: JobKind;
  payload: Record<string, unknown>;
  fromStatuses: readonly RunStatus[];
}

/** The queued job, or why not: the run as it is, and the cancel or abandon that will end it (if any). */
export type RunContinuationAnswer =
  | { queued: true; run: Run; job: Job }
  | { queued: false; run: Run | undefined; ending?: RunEnding; refused?: { refused: string; holders: string[] } };

export interface GateDecisionRequest {
  runId: string;
  kind: GateDecisionJobKind;
  payload: Record<string, unknown>;
}

/** `queued`, or why not: the run as it is, and the kind of the answer already open (if any). */
export type GateDecisionAnswer =
  | { queued: true; run: Run }
  | { queued: false; run: Run | undefined; open?: GateDecisionJobKind; ending?: RunEnding };

export interface NewRun {
  id: string;
  workflowName: string;
  conversationId: string;
  workingPath: string | null;
  /** The registered codebase the run works on (its worktree is made from it); null/omitted: none. */
  codebaseId?: string | null;
  userMessage: string;
  /** Text, or a typed input's value (JSON). */
  inputs: Run['inputs'];
  metadata: RunMetadata;
  /** The workflow definition as loaded when the run was requested; the run executes this. */
  definition: unknown;
  /** The conversation the run belongs to (its platform id is `conversationId`), created if absent. */
  conversation?: NewConversation;
  /** The identity of the request that created the run (X-Service-User); null/omitted: none. */
  userId?: string | null;
  /**
   * A child run: its parent run, the parent's node path and its index among the node's children.
   * Creating a child that exists already (same parent, node and index) returns that one instead.
   */
  parent?: { runId: string; nodeId: string; childIndex: number };
  /** Events written with the run, in the same transaction (its `workflow_queued`); none when an existing child is returned. */
  events?: readonly NewRunEvent[];
}

export interface RunListQuery {
  status?: RunStatus;
  conversationId?: string;
  workflowName?: string;
  codebaseId?: string;
  limit: number;
}

export interface DashboardRunQuery {
  status?: RunStatus;
  codebaseId?: string;
  /** Only runs of this workflow name. */
  workflowName?: string;
  /** Case-insensitive substring of the workflow name or the run's message. */
  search?: string;
  /** ISO times: runs created at or after `after`, and before `before`. */
  after?: string;
  before?: string;
  limit: number;
  offset: number;
}

export interface AcquireRun {
  runId: string;
  ownerId: string;
  leaseMs: number;
  fromStatuses: readonly RunStatus[];
  status: RunStatus;
  previousOwner?: string | null;
  /**
   * A resume: clears the run's `error` and any cancel request left from before it ended. A run
   * that holds no place of its concurrency key (it ended) is admitted in the same transaction as
   * a new start is: it runs, or it is left pending waiting for a place (the run answered is
   * `pending`), or a `refuse` policy throws CONCURRENCY_LIMIT_REACHED and nothing is written.
   */
  resume?: boolean;
  /** Replaces the run's definition snapshot (a resume runs the workflow as its file now reads). */
  definition?: unknown;
  /** Merged into the run's metadata in the same transaction (JSON merge patch: null removes a key). */
  metadataPatch?: Record<string, unknown>;
  /** Only a run nobody owns (a sleeping one): never one whose owner's lease merely lapsed. */
  onlyUnowned?: boolean;
  events: readonly NewRunEvent[];
}

export interface TransitionRun {
  runId: string;
  ownerId: string;
  status?: RunStatus;
  error?: string | null;
  metadataPatch?: Record<string, unknown>;
  /** Sets `completed_at` and releases ownership (terminal states and pauses). */
  release?: boolean;
  events: readonly NewRunEvent[];
}
