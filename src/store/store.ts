import type { Job, JobKind } from './schemas/job.js';
import type { NewRunEvent, RunEvent } from './schemas/event.js';
import type { Run, RunStatus } from './schemas/run.js';
import type { SupervisorHeartbeat } from './schemas/heartbeat.js';

/**
 * The one narrow, asynchronous door to the database. Every process and every worker thread
 * opens its own Store; a connection never crosses a thread.
 *
 * Written so that a PostgreSQL implementation can satisfy it: no method hands out a connection
 * or a transaction, each multi-row change is one named, atomic operation, timestamps are ISO
 * strings, and change notification is a callback (a WAL-file watch here, LISTEN/NOTIFY there).
 * The one ordering promise callers rely on: event `seq` values become visible in increasing
 * order (SQLite has a single writer; a PostgreSQL store must serialise event inserts or hand out
 * `seq` at commit time to keep it).
 */
export interface Store {
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Calls `listener` (coalesced, at most once per tick) after another connection commits. */
  onChange(listener: () => void): () => void;

  // ── runs, as the API process sees them ──────────────────────────────────────────────
  /** Inserts a pending run and its `start_run` job in one transaction. */
  createRun(run: NewRun): Promise<Run>;
  getRun(id: string): Promise<Run | undefined>;
  /** The definition snapshot taken when the run was created. */
  getRunDefinition(id: string): Promise<unknown>;
  listRuns(query: RunListQuery): Promise<Run[]>;
  countRuns(status: RunStatus): Promise<number>;
  /** Queues a job for the supervisor (cancel, and later resume, approve ...). */
  enqueueJob(kind: JobKind, runId: string, payload?: Record<string, unknown>): Promise<Job>;

  // ── jobs, as the supervisor sees them ───────────────────────────────────────────────
  /**
   * Claims the oldest job that is queued, or claimed under a lease that has expired. Jobs for a
   * run owned by another live supervisor are left for that supervisor.
   */
  claimJob(ownerId: string, leaseMs: number): Promise<Job | undefined>;
  finishJob(jobId: number, ownerId: string, result: string): Promise<void>;

  // ── run ownership and state, as the supervisor sees them ─────────────────────────────
  /**
   * Takes ownership of a run if it is in one of `fromStatuses` and is unowned, owned by
   * `ownerId`, owned by `previousOwner`, or its lease has expired; moves it to `status` and
   * appends `events`, all in one transaction. Returns undefined when the run was not taken.
   */
  acquireRun(input: AcquireRun): Promise<Run | undefined>;
  /** Extends the lease of every non-terminal run `ownerId` owns. Returns how many. */
  renewRunLeases(ownerId: string, leaseMs: number): Promise<number>;
  /** Gives up ownership of the named runs (shutdown), leaving their status as it is. */
  releaseRuns(ownerId: string, runIds: readonly string[]): Promise<void>;
  /** Runs in `running` status whose owner is not `ownerId` (candidates for take-over). */
  listRunsNotOwnedBy(ownerId: string, status: RunStatus): Promise<Run[]>;
  /**
   * Applies a state change to a run the caller owns and appends `events`, in one transaction.
   * Throws RUN_INVALID_STATE if `ownerId` no longer owns the run.
   */
  transitionRun(input: TransitionRun): Promise<Run>;

  // ── events ───────────────────────────────────────────────────────────────────────────
  appendEvents(events: readonly NewRunEvent[]): Promise<RunEvent[]>;
  listRunEvents(runId: string): Promise<RunEvent[]>;
  /** Events with `seq` greater than `afterSeq`, oldest first (the SSE tailer's read). */
  listEventsAfter(afterSeq: number, limit: number, filter?: EventFilter): Promise<RunEvent[]>;
  lastEventSeq(): Promise<number>;

  // ── supervisor heartbeats ────────────────────────────────────────────────────────────
  writeHeartbeat(heartbeat: SupervisorHeartbeat): Promise<void>;
  listHeartbeats(): Promise<SupervisorHeartbeat[]>;
}

export interface NewRun {
  id: string;
  workflowName: string;
  conversationId: string;
  workingPath: string | null;
  userMessage: string;
  inputs: Record<string, string>;
  metadata: Record<string, unknown>;
  /** The workflow definition as loaded when the run was requested; the run executes this. */
  definition: unknown;
}

export interface RunListQuery {
  status?: RunStatus;
  conversationId?: string;
  workflowName?: string;
  limit: number;
}

export interface AcquireRun {
  runId: string;
  ownerId: string;
  leaseMs: number;
  fromStatuses: readonly RunStatus[];
  status: RunStatus;
  previousOwner?: string | null;
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

export interface EventFilter {
  conversationId?: string;
  runId?: string;
}
