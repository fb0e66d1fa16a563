import { Piscina } from 'piscina';
import { builtPath } from '../../shared/package-root.js';
import { CairnError, coerceError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { silentLogger } from '../../shared/log.js';
import { killProcessGroup } from '../../shared/process-group.js';
import {
  FLUSH_ENDS_KIND, attemptResultSchema, flushEndsAnswerSchema, type AttemptResult, type AttemptTaskEnvelope,
  type FlushEndsAnswer,
} from '../attempt-protocol.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import { chatCallResultSchema, chatCallTaskSchema, type ChatCallResult, type ChatCallTask } from '../chat-protocol.js';
import { cancelledFailure, stopRequestOf } from '../cancel-reason.js';
import type { WorkerKinds } from '../nodes/worker-kind.js';
import { workerKindTable } from '../nodes/worker-kinds.js';
import { AttemptTracker } from './attempt-tracker.js';
import { recordedResult } from './recorded-result.js';
import { attemptCloser } from '../attempt-closer.js';
import { letThreadsSizeTheirOwnHeaps, THREAD_YOUNG_GENERATION_MB } from './thread-heap.js';

export interface WorkerPoolOptions {
  /** Where the pool writes the terminal record of an attempt whose thread could not. */
  store: Store;
  maxThreads: number;
  /** Attempts one thread runs at once; an exec attempt mostly waits on its child. */
  concurrentTasksPerWorker: number;
  /** The thread entry; defaults to `thread/task-entry.cjs` (which imports `thread/task.js`). */
  filename?: string;
  /**
   * Milliseconds an idle thread is kept before it exits; by default threads live as long as the
   * pool. A thread that exits leaves its spawn helper unreaped (no other thread can wait for it)
   * and the next one pays for module loading, a Store and a new helper.
   */
  idleTimeout?: number;
  /**
   * Time a worker gets, beyond the attempt's kill grace period, to confirm a cancelled attempt
   * before the pool stops it itself (terminating its thread).
   */
  cancelMarginMs?: number;
  log?: Logger;
  /**
   * The worker kinds whose closing record the pool writes for an attempt its thread could not
   * close: the built-in ones unless given (a test's thread entry adds its own, and so does its pool).
   */
  kinds?: WorkerKinds;
  /**
   * Let the thread hold an attempt's terminal record until its next write (the next node's start),
   * so the two share one commit (thread/held-ends.ts). Only with one thread: the next start must be
   * written on the connection that holds the end. The pool then keeps what is held and flushes it
   * (`endsRecorded`) when no attempt follows; whoever writes on the engine's behalf waits for it.
   */
  holdEnds?: boolean;
}

export interface RunAttemptOptions {
  /** Aborting cancels the attempt; `signal.reason` `'shutdown'` (or `{ reason: 'shutdown' }`) marks a shutdown. */
  signal?: AbortSignal;
}

export interface WorkerPoolStats {
  threads: number;
  /** Attempts running in a thread. */
  active: number;
  /** Attempts waiting for a free slot in a thread. */
  queued: number;
}

export interface WorkerPool {
  /**
   * Runs one attempt in a worker thread. Resolves with its outcome once the attempt's records are
   * written (by its thread, or here when the thread could not); `not_started` when it was stopped
   * before anything ran. Rejects only on a bug or a broken store.
   */
  runAttempt(task: AttemptTaskEnvelope, opts?: RunAttemptOptions): Promise<AttemptResult>;
  /**
   * Runs a chat turn's call to the default assistant in a worker thread (its adapter streams
   * over HTTP or spawns a CLI there, never on the supervisor's main thread). Bounded by the
   * call's watchdogs; a thread that ends under it answers as a transient failure.
   */
  runChat(task: ChatCallTask): Promise<ChatCallResult>;
  /** Whether a thread holds terminal records not yet written (`holdEnds`). */
  endsHeld(): boolean;
  /**
   * Resolves once every terminal record a thread held is recorded (written by the thread, or by
   * the pool when the thread cannot): what the supervisor waits for before it writes anything.
   */
  endsRecorded(): Promise<void>;
  /** Waits for running attempts, then stops the threads; kills any process group still alive. */
  close(): Promise<void>;
  stats(): WorkerPoolStats;
}

const DEFAULT_CANCEL_MARGIN_MS = 2_000;
/** How long a thread gets to answer a ping before it is taken for blocked. */
const THREAD_PING_MS = 1_000;

/** The main-thread side of the Piscina pool that runs node attempts. */
export function createWorkerPool(opts: WorkerPoolOptions): WorkerPool {
  const log = opts.log ?? silentLogger();
  letThreadsSizeTheirOwnHeaps();
  const piscina = new Piscina({
    filename: opts.filename ?? builtPath('worker/thread/task-entry.cjs'),
    maxThreads: opts.maxThreads,
    // Threads start with the pool, so the first node of the first run does not wait ~50 ms for
    // a thread to boot, and (idleTimeout) they stay: a recycled thread costs that again.
    minThreads: opts.maxThreads,
    concurrentTasksPerWorker: opts.concurrentTasksPerWorker,
    idleTimeout: opts.idleTimeout ?? Infinity,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  // A thread that dies with no task of ours on it surfaces here; without a listener Node would
  // treat the 'error' event as an uncaught exception.
  piscina.on('error', (err: unknown) => log.error({ err }, 'worker.pool_error'));
  const tracker = new AttemptTracker();
  const kinds = opts.kinds ?? workerKindTable();
  const cancelMarginMs = opts.cancelMarginMs ?? DEFAULT_CANCEL_MARGIN_MS;
  // The owner of attempts' ends on this store, which the supervisor's handlers and take-overs ask too.
  const closer = attemptCloser(opts.store, opts.log);
  let inFlight = 0;
  let closed = false;
  let holding = opts.holdEnds === true && opts.maxThreads === 1;
  /** Terminal records the thread holds, by attempt id, with the thread: what the pool writes if the thread cannot. */
  const heldEnds = new Map<string, { end: NewRunEvent; threadId: number | undefined }>();
  let flushing: Promise<void> | undefined;
  /** An attempt was dispatched since the last answer that left ends held: its start writes them. */
  let dispatched = false;
  let flushCheck = false;

  /**
   * After an answer that leaves ends held: once what the answer set off has run (the scheduler's
   * pass, in the same turn), and no attempt was dispatched whose start would write them, flush.
   */
  function noteAnswer(attemptId: string, result: AttemptResult): void {
    for (const id of result.recordedEnds ?? []) heldEnds.delete(id);
    if (result.heldEnd) heldEnds.set(attemptId, { end: result.heldEnd, threadId: result.heldOn });
    if (heldEnds.size === 0 || flushCheck) return;
    flushCheck = true;
    dispatched = false;
    setImmediate(() => {
      flushCheck = false;
      if (!dispatched && heldEnds.size > 0) endsRecorded().catch((err: unknown) => log.error({ err }, 'worker.flush_ends_failed'));
    });
  }

  async function endsRecorded(): Promise<void> {
    while (heldEnds.size > 0) {
      flushing ??= flushOnce().finally(() => (flushing = undefined));
      await flushing;
    }
  }

  /**
   * Asks the thread to write what it holds. What it could not record, and what a thread that
   * ended held (the answer comes from another thread, or none comes), the pool writes itself.
   */
  async function flushOnce(): Promise<void> {
    const asked = [...heldEnds];
    let answer: FlushEndsAnswer | undefined;
    try {
      answer = flushEndsAnswerSchema.parse(await piscina.run({ kind: FLUSH_ENDS_KIND }));
    } catch (err) {
      log.warn({ err }, 'worker.flush_ends_unanswered');
    }
    const lost = asked.filter(([id, held]) => !answer || held.threadId !== answer.threadId || answer.unrecordedEnds.includes(id));
    for (const [id] of asked) if (!lost.some(([lostId]) => lostId === id)) heldEnds.delete(id);
    if (lost.length === 0) return;
    await closer.closeAll('pool', lost.map(([, held]) => held.end));
    for (const [id] of lost) heldEnds.delete(id);
  }

  async function runAttempt(input: AttemptTaskEnvelope, runOpts: RunAttemptOptions = {}): Promise<AttemptResult> {
    if (closed) throw new CairnError('INTERNAL', 'the worker pool is closed');
    // A malformed task is a bug in the caller: throw rather than return a failed attempt.
    const kind = kinds.get(input.kind);
    if (!kind) throw new CairnError('INTERNAL', `no worker kind runs '${input.kind}' attempts`);
    // The kind's schema spreads the envelope's shape (worker-kind.ts), so the task it parses is
    // the envelope as well: parsing the envelope again would check the same fields twice.
    const task = kind.taskSchema.parse(holding ? { ...input, holdEnd: true } : input);
    const attemptId = task.attempt.id;
    const signal = runOpts.signal;
    if (signal?.aborted) return notStartedResult();

    inFlight++;
    const dispatchedAt = new Date().toISOString();
    tracker.begin(attemptId);
    dispatched = true;
    const running = piscina.run(task) as Promise<unknown>;
    try {
      const settled = await raceWithCancel(running, attemptId, task.killGraceMs, signal);
      if (settled.kind === 'result') {
        const result = attemptResultSchema.parse(settled.value);
        noteAnswer(attemptId, result);
        return result;
      }
      const result = settled.kind === 'stopped' ? settled.result : await afterWorkerError(attemptId, settled.error);
      // The thread could not write this attempt's end: the pool asks the attempt's kind for the
      // record and the closer to close with it (a no-op when the thread's own close got there
      // first, and then the attempt's outcome is what the thread recorded).
      const answer = await closer.close('pool', [kind.closedEvent(task, dispatchedAt, result)]);
      return answer === 'closed' ? result : await recordedResult(opts.store, task, result);
    } finally {
      tracker.end(attemptId);
      inFlight--;
    }
  }

  type Settled =
    | { kind: 'result'; value: unknown }
    | { kind: 'error'; error: unknown }
    | { kind: 'stopped'; result: AttemptResult };

  /**
   * Waits for the worker's answer. On abort, asks the worker to stop the attempt and gives it
   * the kill grace period plus a margin; past that, stops the attempt from this side.
   */
  function raceWithCancel(
    running: Promise<unknown>,
    attemptId: string,
    graceMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Settled> {
    return new Promise<Settled>((resolve) => {
      let deadline: NodeJS.Timeout | undefined;
      let done = false;
      // Once this side stops the attempt, the worker's answer (or its thread's end) no longer counts.
      let takenOver = false;
      const finish = (settled: Settled) => {
        if (done) return;
        done = true;
        if (deadline) clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        resolve(settled);
      };
      const onAbort = () => {
        tracker.postCancel(attemptId, stopRequestOf(signal!.reason));
        deadline = setTimeout(() => {
          takenOver = true;
          void stopUnanswered(attemptId, signal!.reason).then(
            (result) => finish({ kind: 'stopped', result }),
            (error: unknown) => finish({ kind: 'error', error }),
          );
        }, graceMs + cancelMarginMs);
        deadline.unref();
      };
      running.then(
        (value) => takenOver || finish({ kind: 'result', value }),
        (error: unknown) => takenOver || finish({ kind: 'error', error }),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * A worker did not answer a cancel in time. The pool kills the attempt's process group
   * itself and answers; the caller writes the attempt's record (the store keeps only the first
   * terminal record of an attempt, so a late one from the thread is refused). The thread is
   * left alone when it still answers a ping, so a slow cancel never costs the other attempts
   * on it (other runs' nodes); only a thread whose event loop is blocked is terminated, which
   * ends its other attempts too (they come back through `afterWorkerError`).
   */
  async function stopUnanswered(attemptId: string, abortReason: unknown): Promise<AttemptResult> {
    const { pid, threadId } = tracker.whereabouts(attemptId);
    const responsive = threadId !== undefined && (await tracker.isThreadResponsive(threadId, THREAD_PING_MS));
    log.warn({ attemptId, pid, threadId, responsive }, 'worker.cancel_unanswered');
    if (threadId !== undefined && !responsive) {
      await piscina.threads.find((t) => t.threadId === threadId)?.terminate();
    }
    if (pid !== undefined) await killProcessGroup(pid, { graceMs: 0, signal: 'SIGKILL' });
    return {
      status: 'cancelled',
      output: '',
      ...cancelledFailure(stopRequestOf(abortReason)),
      startedAt: new Date().toISOString(),
      durationMs: 0,
      exitCode: null,
      signal: null,
      ...(pid !== undefined ? { pid } : {}),
    };
  }

  /**
   * The worker threw, or its thread ended under it. If the attempt's child may still run, kill
   * its group: nothing of an attempt may outlive the answer we give. A thread that ended (ours
   * terminated it, or it crashed) is the attempt's misfortune, not its fault: a transient
   * failure, recorded by the caller. Anything else is a bug or a broken store and is rethrown.
   */
  async function afterWorkerError(attemptId: string, thrown: unknown): Promise<AttemptResult> {
    const err = coerceError(thrown);
    const { pid } = tracker.whereabouts(attemptId);
    if (pid !== undefined) await killProcessGroup(pid, { graceMs: 0, signal: 'SIGKILL' });
    if (isThreadEnded(err)) {
      log.warn({ attemptId, err }, 'worker.thread_ended');
      return {
        status: 'failed',
        output: '',
        error: `the worker thread running this attempt ended (${err.message}); the attempt did not finish`,
        failureKind: 'transient',
        retryable: true,
        startedAt: new Date().toISOString(),
        durationMs: 0,
        exitCode: null,
        signal: null,
        ...(pid !== undefined ? { pid } : {}),
      };
    }
    throw new CairnError('INTERNAL', `attempt ${attemptId} failed in its worker: ${err.message}`, { attemptId }, {
      cause: err,
    });
  }

  async function runChat(input: ChatCallTask): Promise<ChatCallResult> {
    if (closed) throw new CairnError('INTERNAL', 'the worker pool is closed');
    const task = chatCallTaskSchema.parse(input);
    inFlight++;
    try {
      return chatCallResultSchema.parse(await piscina.run(task));
    } catch (thrown) {
      const err = coerceError(thrown);
      if (!isThreadEnded(err)) throw err;
      log.warn({ err, conversationId: task.conversationId }, 'worker.chat_thread_ended');
      return { status: 'failed', text: '', streamed: false, tail: '', error: `the worker thread answering this message ended (${err.message})`, failureClass: 'transient' };
    } finally {
      inFlight--;
    }
  }

  return {
    runAttempt,
    runChat,
    endsHeld: () => heldEnds.size > 0,
    endsRecorded,
    async close() {
      closed = true;
      holding = false;
      await endsRecorded();
      await piscina.close();
      // Ends held by attempts that answered while the threads stopped: the pool writes them.
      if (heldEnds.size > 0) await closer.closeAll('pool', [...heldEnds.values()].map((held) => held.end));
      heldEnds.clear();
      // Anything still known to be running lost its thread with the pool: kill it.
      await Promise.all(tracker.livePids().map((pid) => killProcessGroup(pid, { graceMs: 0, signal: 'SIGKILL' })));
      tracker.close();
    },
    stats() {
      const queued = piscina.queueSize;
      return { threads: piscina.threads.length, active: Math.max(0, inFlight - queued), queued };
    },
  };
}

/** An attempt stopped before it was dispatched: nothing ran, nothing is recorded. */
function notStartedResult(): AttemptResult {
  return { status: 'not_started', output: '', startedAt: new Date().toISOString(), durationMs: 0, exitCode: null, signal: null };
}

/** Piscina's errors for a task whose thread went away under it. */
function isThreadEnded(err: Error): boolean {
  return /worker exited|thread termination|terminating worker thread/i.test(err.message);
}
