import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import {
  ATTEMPT_CONTROL_CHANNEL,
  attemptControlSchema,
  attemptTaskSchema,
  type AttemptNotice,
  type AttemptResult,
} from '../attempt-protocol.js';
import { openStore, type Store, type StoreConfig } from '../../store/open-store.js';
import { execFinishedEvent, execStartedEvent, spillStreams } from '../nodes/exec/exec-records.js';
import { runExec } from '../nodes/exec/exec.js';
import { LiveOutput } from '../nodes/exec/live-output.js';
import { runAgentAttempt } from '../nodes/agent/agent-attempt.js';
import { observeCheckout } from '../../codebases/checkout-state.js';
import { chatCallTaskSchema, type ChatCallResult } from '../chat-protocol.js';
import { runChatCall } from '../chat/chat-call.js';
import { appendTerminalRecord } from './terminal-record.js';
import { fileNameFor } from '../../shared/file-name.js';
import { isWorthWaitingFor, storeFaultOf, type StoreFault } from '../../shared/store-faults.js';

/**
 * Piscina's thread entry: one node attempt per call, several at once per thread. A thread
 * keeps one Store per database for its whole life (a connection never crosses threads) and one
 * control-channel listener through which the pool cancels the attempts it runs.
 */

const stores = new Map<string, Store>();
/** The attempts this thread is running, by attempt id. */
const running = new Map<string, AbortController>();
/**
 * Cancels for attempts this thread is not (yet) running. The pool may cancel an attempt that is
 * still on its way to a thread; whichever thread receives it then stops it before spawning.
 * Every thread hears every cancel, so this is bounded: the oldest ids go first.
 */
const cancelledEarly = new Map<string, 'cancelled' | 'shutdown'>();
const CANCELLED_EARLY_MAX = 1024;

let channel: BroadcastChannel | undefined;

function storeFor(config: StoreConfig): Store {
  const key = JSON.stringify(config);
  let store = stores.get(key);
  if (!store) {
    store = openStore(config);
    stores.set(key, store);
  }
  return store;
}

function controlChannel(): BroadcastChannel {
  if (channel) return channel;
  channel = new BroadcastChannel(ATTEMPT_CONTROL_CHANNEL);
  channel.onmessage = (event) => onControl((event as MessageEvent).data);
  channel.unref();
  return channel;
}

function onControl(data: unknown): void {
  // Workers' own notices travel on the same channel: skip them before parsing.
  const type = (data as { type?: unknown } | null)?.type;
  if (type !== 'cancel' && type !== 'ping') return;
  const parsed = attemptControlSchema.safeParse(data);
  if (!parsed.success) return;
  if (parsed.data.type === 'ping') {
    if (parsed.data.threadId === threadId) notify({ type: 'pong', threadId, nonce: parsed.data.nonce });
    return;
  }
  const { attemptId, reason } = parsed.data;
  const controller = running.get(attemptId);
  if (controller) {
    controller.abort(reason);
    return;
  }
  cancelledEarly.set(attemptId, reason);
  if (cancelledEarly.size > CANCELLED_EARLY_MAX) cancelledEarly.delete(cancelledEarly.keys().next().value!);
}

function notify(notice: AttemptNotice): void {
  controlChannel().postMessage(notice);
}

/**
 * Runs one task: a node attempt, or a chat turn's call to the default assistant (`kind: 'chat'`).
 * An attempt's events are written before it returns (none for an attempt stopped before it
 * spawned: `not_started`).
 */
export default async function runThreadTask(input: unknown): Promise<AttemptResult | ChatCallResult> {
  if ((input as { kind?: unknown } | null)?.kind === 'chat') {
    return runChatCall(input, storeFor(chatCallTaskSchema.shape.store.parse((input as { store: unknown }).store)));
  }
  return runAttemptTask(input);
}

async function runAttemptTask(input: unknown): Promise<AttemptResult> {
  const task = attemptTaskSchema.parse(input);
  const attemptId = task.attempt.id;
  const store = storeFor(task.store);
  controlChannel();
  const controller = new AbortController();
  running.set(attemptId, controller);
  const early = cancelledEarly.get(attemptId);
  if (early) {
    cancelledEarly.delete(attemptId);
    controller.abort(early);
  }

  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  let spawnedPid: number | undefined;
  let recorded = false;
  try {
    // One sample of the checkout per attempt, before the node runs (never per event).
    const checkout = task.artifactsDir === undefined ? undefined : await observeCheckout(task.cwd, {
      runId: task.runId,
      artifactsDir: task.artifactsDir,
      manifestPath: join('.cairn', 'checkout', fileNameFor(task.path), `${attemptId}.jsonl`),
    }).catch(deferIfWorthWaiting);
    if (task.kind === 'agent') {
      return await runAgentAttempt(task, { store, signal: controller.signal, checkout, notify, threadId });
    }
    const live = new LiveOutput(
      { runId: task.runId, conversationId: task.conversationId, path: task.path, nodeId: task.nodeId, attemptId },
      (events) => store.appendEvents(events),
    );
    const outcome = await runExec(task, {
      signal: controller.signal,
      onOutput: (stream, chunk) => live.push(stream, chunk),
      // The child waits at its gate until its node_started row (with the pid) is committed, so a
      // crash at any moment leaves no process that a later supervisor cannot find and kill. A
      // failed write kills the waiting child and throws out of runExec.
      async onSpawned(pid) {
        spawnedPid = pid;
        notify({ type: 'spawned', attemptId, pid, threadId });
        await store.appendEvents([execStartedEvent(task, startedAt, pid, checkout)]);
        recorded = true;
      },
    })
      .catch((err: unknown) => (recorded ? Promise.reject(err) : deferIfWorthWaiting(err)))
      .finally(async () => {
        await live.stop();
        if (spawnedPid !== undefined) notify({ type: 'exited', attemptId });
      });
    const durationMs = performance.now() - t0;
    const result: AttemptResult = { ...outcome, startedAt, durationMs, ...(checkout !== undefined ? { checkoutStart: checkout } : {}) };

    // Stopped before it spawned: nothing ran, so nothing is recorded.
    if (outcome.status === 'cancelled' && spawnedPid === undefined) return { ...result, status: 'not_started' };
    // Both streams are kept whatever the outcome: a failure's stdout and a success's stderr too.
    const finished = execFinishedEvent(task, startedAt, result, await spillStreams(task, result));
    // Attempts that never spawned (missing runtime, bad cwd) get their start and end at once.
    await appendTerminalRecord(store, spawnedPid === undefined ? [execStartedEvent(task, startedAt, undefined, checkout), finished] : [finished]);
    return result;
  } catch (err) {
    if (err instanceof Deferred) return { status: 'not_started', output: '', startedAt, durationMs: 0, exitCode: null, signal: null, storeFault: err.fault };
    throw err;
  } finally {
    running.delete(attemptId);
  }
}

/** An attempt that could not begin for a reason waiting may mend: it did not start, nothing ran. */
class Deferred extends Error {
  constructor(readonly fault: StoreFault) {
    super(fault.message);
  }
}

/**
 * Before an attempt's program runs, a write the disk (or a database held busy) refused does not
 * fail the node: the attempt is reported not started, with the fault, and the supervisor side
 * runs it again once writes go through. Anything else is thrown on.
 */
function deferIfWorthWaiting(err: unknown): never {
  if (isWorthWaitingFor(err)) throw new Deferred(storeFaultOf(err, 'start a node'));
  throw err;
}
