import { join } from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { abortReasonOf } from '../cancel-reason.js';
import {
  ATTEMPT_CONTROL_CHANNEL, FLUSH_ENDS_KIND, attemptControlSchema, attemptTaskEnvelopeSchema, type AttemptNotice, type AttemptResult, type FlushEndsAnswer,
} from '../attempt-protocol.js';
import { openStore, type Store, type StoreConfig } from '../../store/open-store.js';
import { createLogger, type Logger } from '../../shared/log.js';
import { attemptCloser } from '../attempt-closer.js';
import { observeCheckout } from '../../codebases/checkout-state.js';
import { chatCallTaskSchema, type ChatCallResult } from '../chat-protocol.js';
import { runChatCall } from '../chat/chat-call.js';
import { fileNameFor } from '../../shared/file-name.js';
import { Deferred, deferIfWorthWaiting } from '../nodes/deferred-start.js';
import { HeldEnds, writingHeldEndsFirst } from './held-ends.js';
import type { WorkerKinds } from '../nodes/worker-kind.js';
import { workerKindTable } from '../nodes/worker-kinds.js';

/**
 * Piscina's thread entry: one node attempt per call, several at once per thread, each run by
 * its kind's worker side (worker/nodes/worker-kinds.ts). A thread
 * keeps one Store per database for its whole life (a connection never crosses threads) and one
 * control-channel listener through which the pool cancels the attempts it runs.
 */

const stores = new Map<string, Store>();
/** The ends this thread holds, per store (thread/held-ends.ts). */
const heldEndsOf = new Map<Store, HeldEnds>();
/** The attempts this thread is running, by attempt id. */
const running = new Map<string, AbortController>();
/**
 * Cancels for attempts this thread is not (yet) running. The pool may cancel an attempt that is
 * still on its way to a thread; whichever thread receives it then stops it before spawning.
 * Every thread hears every cancel, so this is bounded: the oldest ids go first.
 */
const cancelledEarly = new Map<string, unknown>();
const CANCELLED_EARLY_MAX = 1024;

let channel: BroadcastChannel | undefined;
let log: Logger | undefined;

function storeFor(config: StoreConfig): Store {
  const key = JSON.stringify(config);
  let store = stores.get(key);
  if (!store) {
    const opened = openStore(config);
    const held = new HeldEnds(opened);
    // Every append of this thread writes the ends it holds first, in the same transaction.
    store = writingHeldEndsFirst(opened, held);
    heldEndsOf.set(store, held);
    stores.set(key, store);
    // The thread's closer of attempts on this store logs what it refuses (a close after the pool's).
    attemptCloser(store, (log ??= createLogger({ name: 'worker' })));
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
  const { attemptId, reason, text } = parsed.data;
  const abortReason = abortReasonOf({ reason, ...(text !== undefined ? { text } : {}) });
  const controller = running.get(attemptId);
  if (controller) {
    controller.abort(abortReason);
    return;
  }
  cancelledEarly.set(attemptId, abortReason);
  if (cancelledEarly.size > CANCELLED_EARLY_MAX) cancelledEarly.delete(cancelledEarly.keys().next().value!);
}

function notify(notice: AttemptNotice): void {
  controlChannel().postMessage(notice);
}

/**
 * The thread entry over a table of worker kinds: runs one task, a node attempt (dispatched by its
 * `kind` to the kind's worker side) or a chat turn's call to the default assistant (`kind: 'chat'`).
 * An attempt's events are written before it returns (none for an attempt stopped before it began:
 * `not_started`). A test's thread entry makes one with its own kinds added (`workerKindTable`).
 */
export function createThreadTask(kinds: WorkerKinds): (input: unknown) => Promise<AttemptResult | ChatCallResult | FlushEndsAnswer> {
  return async (input) => {
    if ((input as { kind?: unknown } | null)?.kind === FLUSH_ENDS_KIND) return flushHeldEnds();
    if ((input as { kind?: unknown } | null)?.kind === 'chat') {
      return runChatCall(input, storeFor(chatCallTaskSchema.shape.store.parse((input as { store: unknown }).store)));
    }
    return runAttemptTask(kinds, input);
  };
}

/** Writes every end this thread holds; answers with the ends it could not record (the pool writes those). */
async function flushHeldEnds(): Promise<FlushEndsAnswer> {
  const unrecorded = await Promise.all([...heldEndsOf.values()].map((held) => held.flush()));
  return { threadId, unrecordedEnds: unrecorded.flat() };
}

/** The thread entry Piscina loads (through task-entry.cts): the built-in kinds. */
export default createThreadTask(workerKindTable());

async function runAttemptTask(kinds: WorkerKinds, input: unknown): Promise<AttemptResult> {
  const envelope = attemptTaskEnvelopeSchema.parse(input);
  const kind = kinds.get(envelope.kind);
  if (!kind) throw new Error(`no worker kind runs '${envelope.kind}' attempts in this thread`);
  const task = kind.taskSchema.parse(input);
  const attemptId = envelope.attempt.id;
  const store = storeFor(envelope.store);
  controlChannel();
  const controller = new AbortController();
  running.set(attemptId, controller);
  const early = cancelledEarly.get(attemptId);
  if (early) {
    cancelledEarly.delete(attemptId);
    controller.abort(early);
  }

  const startedAt = new Date().toISOString();
  try {
    // One sample of the checkout per attempt, before the node runs (never per event).
    const checkout = envelope.artifactsDir === undefined ? undefined : await observeCheckout(envelope.cwd, {
      runId: envelope.runId,
      artifactsDir: envelope.artifactsDir,
      manifestPath: join('.cairn', 'checkout', fileNameFor(envelope.path), `${attemptId}.jsonl`),
    }).catch(deferIfWorthWaiting);
    const heldEnds = heldEndsOf.get(store)!;
    const result = await kind.run(task, { store, signal: controller.signal, checkout, notify, threadId, heldEnds });
    const recordedEnds = heldEnds.takeRecorded();
    return {
      ...result,
      ...(result.heldEnd ? { heldOn: threadId } : {}),
      ...(recordedEnds.length ? { recordedEnds } : {}),
    };
  } catch (err) {
    if (err instanceof Deferred) return { status: 'not_started', output: '', startedAt, durationMs: 0, exitCode: null, signal: null, storeFault: err.fault };
    throw err;
  } finally {
    running.delete(attemptId);
  }
}
