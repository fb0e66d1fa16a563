import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger, type Logger } from '../shared/log.js';
import { isWorthWaitingFor } from '../shared/store-faults.js';
import type { NewRunEvent, RunEvent } from '../store/schemas/event.js';
import type { Store } from '../store/store.js';

/**
 * The one owner that closes an attempt: writes the record that ends it (`node_completed` or
 * `node_failed`, marked `ends_attempt`). Whoever sees an attempt end asks it, with the outcome it
 * saw: the worker thread that ran it, the pool when that thread could not (it died, or did not
 * confirm a cancel), a supervisor-side handler (a body that cannot run, a pool that threw), a
 * take-over (an attempt a dead supervisor left in flight). The first close wins; any later one is
 * a no-op, logged (`attempt.close_ignored`), never a second write.
 *
 * There is one closer per Store handle (`attemptCloser`), so one per supervisor process and one
 * per worker thread, which each open their own. Within one, a second close is answered from
 * memory, without touching the database. Between them (a thread's late close after the pool took
 * the attempt over, a dead supervisor's thread against the take-over that closed its attempts)
 * the decision is the store's: it keeps one `ends_attempt` row per attempt, atomically, and the
 * closer reads from what was written whether its close was the first.
 */

/** Who asks for the close. */
export type AttemptCloserRole = 'thread' | 'pool' | 'handler' | 'takeover';

export type CloseAnswer = 'closed' | 'already_closed';

export interface CloseOptions {
  /**
   * Retry while the database cannot take the write now (another process holding its lock past
   * the store's own wait, a full disk), until it commits or the store closes: the thread's close,
   * whose outcome (a success, a paid call's spend) must not turn into a failure for one write.
   */
  persist?: boolean;
  /**
   * Where the close is first written instead of the store: a worker thread's held ends
   * (thread/held-ends.ts), which write it with the thread's next write. A retry goes to the store.
   */
  via?: Pick<Store, 'appendEvents'>;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** Attempts remembered as closed (the most recent): enough for every attempt a process has in flight. */
const REMEMBERED = 10_000;

export class AttemptCloser {
  /** Attempts closed through this closer, or found closed by someone else, with who closed them. */
  private readonly decided = new Map<string, AttemptCloserRole | 'another writer'>();
  /** Closes being written, by attempt id. */
  private readonly writing = new Map<string, Promise<CloseAnswer>>();

  constructor(
    private readonly store: Pick<Store, 'appendEvents'>,
    private log: Logger = silentLogger(),
  ) {}

  /** Logs through `log` from now on (the supervisor's, once it is wired). */
  useLog(log: Logger): void {
    this.log = log;
  }

  /**
   * Closes one attempt with `events`: its terminal event (marked `ends_attempt`), after any record
   * it still lacks (its start, for an attempt that never spawned), all written together.
   * Resolves `already_closed` (and writes nothing) when the attempt was closed before.
   */
  async close(by: AttemptCloserRole, events: readonly NewRunEvent[], opts: CloseOptions = {}): Promise<CloseAnswer> {
    const end = terminalOf(events);
    const attemptId = end.ends_attempt!;
    const earlier = await this.earlierClose(attemptId);
    if (earlier) return this.ignored(by, end, earlier);
    const writing = this.write(events, opts.persist === true, opts.via).then((rows) => {
      const kept = wasWritten(rows, end);
      this.remember(attemptId, kept ? by : 'another writer');
      if (!kept) this.ignored(by, end, 'another writer');
      return kept ? ('closed' as const) : ('already_closed' as const);
    });
    this.writing.set(attemptId, writing);
    try {
      return await writing;
    } finally {
      this.writing.delete(attemptId);
    }
  }

  /**
   * Closes several attempts in one transaction (a take-over closing what a dead supervisor left
   * in flight, before its run goes on): each of `ends` is one attempt's terminal event. Answers
   * per attempt, in order.
   */
  async closeAll(by: AttemptCloserRole, ends: readonly NewRunEvent[]): Promise<CloseAnswer[]> {
    if (ends.length === 0) return [];
    const fresh: NewRunEvent[] = [];
    for (const end of ends) {
      const earlier = await this.earlierClose(terminalOf([end]).ends_attempt!);
      if (earlier) this.ignored(by, end, earlier);
      else fresh.push(end);
    }
    const rows = fresh.length ? await this.write(fresh, false) : [];
    return ends.map((end) => {
      if (!fresh.includes(end)) return 'already_closed';
      const kept = wasWritten(rows, end);
      this.remember(end.ends_attempt!, kept ? by : 'another writer');
      if (!kept) this.ignored(by, end, 'another writer');
      return kept ? 'closed' : 'already_closed';
    });
  }

  /** Who closed `attemptId` before, waiting for a close of it being written now (one that fails does not count). */
  private async earlierClose(attemptId: string): Promise<AttemptCloserRole | 'another writer' | undefined> {
    const writing = this.writing.get(attemptId);
    if (writing) await writing.catch(() => undefined);
    return this.decided.get(attemptId);
  }

  private ignored(by: AttemptCloserRole, end: NewRunEvent, closedBy: AttemptCloserRole | 'another writer'): 'already_closed' {
    this.log.info(
      { attemptId: end.ends_attempt, runId: end.run_id, path: end.step_name, by, outcome: end.event_type, closedBy },
      'attempt.close_ignored',
    );
    return 'already_closed';
  }

  private remember(attemptId: string, by: AttemptCloserRole | 'another writer'): void {
    this.decided.set(attemptId, by);
    if (this.decided.size > REMEMBERED) this.decided.delete(this.decided.keys().next().value!);
  }

  private async write(events: readonly NewRunEvent[], persist: boolean, via?: Pick<Store, 'appendEvents'>): Promise<RunEvent[]> {
    let delay = FIRST_RETRY_MS;
    let door = via ?? this.store;
    for (;;) {
      try {
        return await door.appendEvents(events);
      } catch (err) {
        if (!persist || !isWorthWaitingFor(err)) throw err;
        door = this.store;
        await sleep(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
    }
  }
}

const closers = new WeakMap<object, AttemptCloser>();

/**
 * The closer of attempts written through `store`: one per Store handle, so every writer in a
 * process (or a thread) that shares the handle asks the same owner. `log`, when given, is what it
 * logs through from then on.
 */
export function attemptCloser(store: Pick<Store, 'appendEvents'>, log?: Logger): AttemptCloser {
  let closer = closers.get(store);
  if (!closer) {
    closer = new AttemptCloser(store, log);
    closers.set(store, closer);
  } else if (log) closer.useLog(log);
  return closer;
}

function terminalOf(events: readonly NewRunEvent[]): NewRunEvent {
  const end = events.findLast((e) => e.ends_attempt !== undefined);
  if (!end) throw new Error('an attempt is closed by its terminal event (ends_attempt), and none was given');
  return end;
}

/** Whether the store wrote `end` (it leaves out the end of an attempt that already has one). */
function wasWritten(rows: readonly RunEvent[], end: NewRunEvent): boolean {
  return rows.some((row) => row.event_type === end.event_type && row.step_name === end.step_name && attemptIdOf(row) === end.ends_attempt);
}

function attemptIdOf(row: RunEvent): unknown {
  return (row.data.execution as { attempt?: { id?: unknown } } | undefined)?.attempt?.id;
}
