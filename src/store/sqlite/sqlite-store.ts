import type Database from 'better-sqlite3';
import { CairnError } from '../../shared/errors.js';
import type { NewRunEvent, RunEvent } from '../schemas/event.js';
import type { SupervisorHeartbeat } from '../schemas/heartbeat.js';
import type { Job, JobKind } from '../schemas/job.js';
import type { Run, RunStatus } from '../schemas/run.js';
import type { AcquireRun, EventFilter, NewRun, RunListQuery, Store, TransitionRun } from '../store.js';
import { ChangeWatch } from './change-watch.js';
import { openConnection } from './connection.js';
import { eventStatements } from './events-sql.js';
import { heartbeatStatements } from './heartbeats-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';

export interface SqliteStoreOptions {
  /** Path of the database file; its directory is created if missing. */
  path: string;
  /** Milliseconds since the epoch; injectable so lease expiry can be tested without waiting. */
  clock?: () => number;
  /** Fallback poll interval of the change watch. */
  pollMs?: number;
}

/** The SQLite implementation of Store: one better-sqlite3 connection, owned by one thread. */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly clock: () => number;
  private readonly runs;
  private readonly jobs;
  private readonly events;
  private readonly heartbeats;
  private readonly changes: ChangeWatch;
  /** One transaction wrapper, reused: `fn` runs inside BEGIN IMMEDIATE ... COMMIT. */
  private readonly inTransaction: Database.Transaction<(fn: () => unknown) => unknown>;
  /** Events waiting for the next batched write (see appendEvents). */
  private pendingEvents: { events: readonly NewRunEvent[]; resolve: (rows: RunEvent[]) => void; reject: (err: unknown) => void }[] = [];

  constructor(opts: SqliteStoreOptions) {
    this.db = openConnection(opts.path);
    this.clock = opts.clock ?? Date.now;
    this.runs = runStatements(this.db);
    this.jobs = jobStatements(this.db);
    this.events = eventStatements(this.db);
    this.heartbeats = heartbeatStatements(this.db);
    this.changes = new ChangeWatch(this.db, opts.path, opts.pollMs ?? 500);
    this.inTransaction = this.db.transaction((fn: () => unknown) => fn());
  }

  private now(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString();
  }

  /** Runs `fn` in a BEGIN IMMEDIATE transaction: the write lock is taken up front, so a busy
   * database makes us wait (busy_timeout) instead of failing on a read-to-write upgrade. */
  private write<T>(fn: () => T): T {
    return this.inTransaction.immediate(fn) as T;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.changes.stop();
    if (this.db.open) this.db.close();
  }

  onChange(listener: () => void): () => void {
    return this.changes.subscribe(listener);
  }

  async createRun(run: NewRun): Promise<Run> {
    return this.write(() => {
      const now = this.now();
      const created = this.runs.insert(run, now);
      this.jobs.insert('start_run', run.id, {}, now);
      return created;
    });
  }

  async getRun(id: string): Promise<Run | undefined> {
    return this.runs.get(id);
  }

  async getRunDefinition(id: string): Promise<unknown> {
    return this.runs.definition(id);
  }

  async listRuns(query: RunListQuery): Promise<Run[]> {
    return this.runs.list(query);
  }

  async countRuns(status: RunStatus): Promise<number> {
    return this.runs.count(status);
  }

  async enqueueJob(kind: JobKind, runId: string, payload: Record<string, unknown> = {}): Promise<Job> {
    return this.write(() => this.jobs.insert(kind, runId, payload, this.now()));
  }

  async claimJob(ownerId: string, leaseMs: number): Promise<Job | undefined> {
    if (!this.jobs.hasOpen()) return undefined;
    return this.write(() => this.jobs.claim(ownerId, this.now(leaseMs), this.now()));
  }

  async finishJob(jobId: number, ownerId: string, result: string): Promise<void> {
    this.write(() => this.jobs.finish(jobId, ownerId, result));
  }

  async acquireRun(input: AcquireRun): Promise<Run | undefined> {
    return this.write(() => {
      const now = this.now();
      const run = this.runs.acquire({
        runId: input.runId,
        ownerId: input.ownerId,
        leaseUntil: this.now(input.leaseMs),
        now,
        fromStatuses: input.fromStatuses,
        status: input.status,
        previousOwner: input.previousOwner ?? null,
      });
      if (run) this.events.append(input.events, now);
      return run;
    });
  }

  async renewRunLeases(ownerId: string, leaseMs: number): Promise<number> {
    return this.write(() => this.runs.renew(ownerId, this.now(leaseMs)));
  }

  async releaseRuns(ownerId: string, runIds: readonly string[]): Promise<void> {
    this.write(() => runIds.forEach((id) => this.runs.release(ownerId, id)));
  }

  async listRunsNotOwnedBy(ownerId: string, status: RunStatus): Promise<Run[]> {
    return this.runs.listNotOwnedBy(ownerId, status);
  }

  async transitionRun(input: TransitionRun): Promise<Run> {
    return this.write(() => {
      const now = this.now();
      const run = this.runs.transition({
        runId: input.runId,
        ownerId: input.ownerId,
        now,
        status: input.status,
        error: input.error,
        metadataPatch: input.metadataPatch,
        release: input.release ?? false,
      });
      if (!run) {
        throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
      }
      this.events.append(input.events, now);
      return run;
    });
  }

  /**
   * Appends events. Calls made in the same tick share one transaction (a worker thread running
   * eight attempts writes their starts and ends together), in call order; each call resolves with
   * its own rows once the batch has committed.
   */
  appendEvents(events: readonly NewRunEvent[]): Promise<RunEvent[]> {
    if (events.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (this.pendingEvents.length === 0) setImmediate(() => this.flushEvents());
      this.pendingEvents.push({ events, resolve, reject });
    });
  }

  private flushEvents(): void {
    const batch = this.pendingEvents;
    this.pendingEvents = [];
    let written: RunEvent[][];
    try {
      written = this.write(() => {
        const now = this.now();
        return batch.map((b) => this.events.append(b.events, now));
      });
    } catch (err) {
      for (const b of batch) b.reject(err);
      return;
    }
    batch.forEach((b, i) => b.resolve(written[i]!));
  }

  async listRunEvents(runId: string): Promise<RunEvent[]> {
    return this.events.listByRun(runId);
  }

  async listEventsAfter(afterSeq: number, limit: number, filter?: EventFilter): Promise<RunEvent[]> {
    return this.events.listAfter(afterSeq, limit, filter);
  }

  async lastEventSeq(): Promise<number> {
    return this.events.lastSeq();
  }

  async writeHeartbeat(heartbeat: SupervisorHeartbeat): Promise<void> {
    this.write(() => this.heartbeats.upsert(heartbeat));
  }

  async listHeartbeats(): Promise<SupervisorHeartbeat[]> {
    return this.heartbeats.list();
  }
}
