import type { z } from 'zod';
import type { CheckoutObservation } from '../../records/schemas/checkout-observation.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import type { HeldEnds } from '../thread/held-ends.js';
import type { AttemptNotice, AttemptResult, AttemptTaskEnvelope } from '../attempt-protocol.js';

/** What the thread gives the attempt it runs. */
export interface AttemptThread {
  store: Store;
  /** Aborted with `'cancelled'` or `'shutdown'` when the pool cancels the attempt. */
  signal: AbortSignal;
  /** The checkout as this attempt found it, sampled once before it runs. */
  checkout: CheckoutObservation | undefined;
  /** Tells the pool of a spawned process group (and of its exit), so it can kill it itself if the thread stops answering. */
  notify: (notice: AttemptNotice) => void;
  threadId: number;
  /** Where an attempt asked to hold its end (`holdEnd`) queues it (thread/held-ends.ts). */
  heldEnds?: HeldEnds;
}

/**
 * One node kind, the worker side: how its attempt runs in a thread, and the record that closes
 * an attempt its thread could not close. The thread task dispatches through the table of them
 * (worker-kinds.ts) by the task's `kind`; the pool asks it for the closing record. The supervisor
 * side builds the task (supervisor/nodes/<kind>/).
 */
export interface WorkerKind<T extends AttemptTaskEnvelope = AttemptTaskEnvelope> {
  readonly kind: string;
  /** The kind's task: `attemptTaskShape` and its own fields. */
  readonly taskSchema: z.ZodType<T>;
  /**
   * Runs one attempt and writes its records before it returns (none for one stopped before it
   * began: `not_started`). Throws `Deferred` (deferred-start.ts) when the store refused its start.
   */
  run(task: T, thread: AttemptThread): Promise<AttemptResult>;
  /** The terminal record the pool writes for an attempt its thread could not close (the thread died, or did not confirm a cancel). */
  closedEvent(task: T, startedAt: string, result: AttemptResult): NewRunEvent;
}

/** The worker kinds by task kind. */
export type WorkerKinds = ReadonlyMap<string, WorkerKind>;
