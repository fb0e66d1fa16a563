import { z } from 'zod';
import { checkoutObservationSchema } from '../records/schemas/checkout-observation.js';
import { providerFailureSchema } from '../records/schemas/node-lifecycle.js';
import { storeConfigSchema } from '../store/store-config.js';
import { newRunEventSchema } from '../store/schemas/event.js';

/**
 * Messages between the supervisor (main thread) and a worker thread. They are structured-cloned,
 * so they are plain data, parsed with these schemas on the receiving side.
 */

/**
 * What every attempt task carries, whatever its node kind: what the pool and the thread read
 * before the kind's own schema does (worker/nodes/<kind>/, registered in worker/nodes/worker-kinds.ts).
 * A kind's task schema spreads `attemptTaskShape` and adds its own fields.
 */
export const attemptTaskShape = {
  /** The node kind whose worker side runs the attempt. */
  kind: z.string(),
  /** The database the worker records the attempt in (each thread opens its own Store). */
  store: storeConfigSchema,
  runId: z.string(),
  conversationId: z.string(),
  /** The node's path in the run (its id for a top-level node). */
  path: z.string(),
  nodeId: z.string(),
  invocation: z.object({
    id: z.string(),
    startedAt: z.string(),
    loopPath: z.array(z.object({ groupId: z.string(), iteration: z.number().int() })),
    /** The checkout as the invocation's first attempt found it, when a later attempt knows it. */
    checkoutStart: checkoutObservationSchema.optional(),
  }),
  attempt: z.object({ id: z.string(), number: z.number().int().min(1) }),
  /**
   * Attempts of this invocation lost, one after the other just before this one, because their
   * spawn helper died (each was run again at once): at MAX_HELPER_LOSSES a loss is final.
   */
  lostBefore: z.number().int().nonnegative().default(0),
  /** Written on the attempt's terminal record (a loop iteration's `iteration` and `maxIterations`). */
  diagnostics: z.object({ iteration: z.number().int().optional(), maxIterations: z.number().int().optional() }).optional(),
  cwd: z.string(),
  killGraceMs: z.number().int().nonnegative(),
  /** The run's `$ARTIFACTS_DIR`: a dirty checkout's manifest is written under it. Omitted: no checkout sample. */
  artifactsDir: z.string().optional(),
  /**
   * The thread may hold the attempt's terminal record, to be written with its next write (the
   * pool asks this only while it has one thread, and flushes what is held: pool.ts, thread/held-ends.ts).
   */
  holdEnd: z.boolean().optional(),
};

/** Any attempt task, its kind's own fields kept for the kind to parse. */
export const attemptTaskEnvelopeSchema = z.looseObject(attemptTaskShape);
export type AttemptTaskEnvelope = z.input<typeof attemptTaskEnvelopeSchema>;

/**
 * `completed` / `failed`: the attempt ran to its own end. `cancelled`: it was stopped by a user's
 * cancel or a shutdown (`interrupted`). `not_started`: it was stopped before anything ran, so
 * nothing was recorded for it. Every other outcome has its records written (by the thread that
 * ran it, or by the pool when that thread could not) before the result is returned.
 */
export const attemptStatusSchema = z.enum(['completed', 'failed', 'cancelled', 'not_started']);

/** What a worker returns for one attempt. Expected outcomes are values, never throws. */
export const attemptResultSchema = z.object({
  status: attemptStatusSchema,
  /** Full output text (stdout with the trailing newline trimmed) for downstream references. */
  output: z.string(),
  error: z.string().optional(),
  failureKind: z.string().optional(),
  retryable: z.boolean().optional(),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Process group id of the child, when one was spawned. */
  pid: z.number().int().optional(),
  /** Set when stdout passed the worker's cap: `output` holds only its head. */
  outputTruncated: z.literal(true).optional(),
  /** Every byte stdout produced, when `outputTruncated`. */
  outputBytes: z.number().int().nonnegative().optional(),
  /** What the attempt wrote to stderr (its head, up to the worker's stderr cap); absent when nothing. */
  stderr: z.string().optional(),
  /** Set when stderr passed the worker's cap: `stderr` holds only its head. */
  stderrTruncated: z.literal(true).optional(),
  /** Every byte stderr produced, when `stderrTruncated`. */
  stderrBytes: z.number().int().nonnegative().optional(),
  /**
   * Not the attempt's own outcome: with `cancelled`, a shutdown stopped it (it runs again when the
   * run is next driven); with `failed`, its spawn helper died under it while the run goes on (the
   * supervisor side runs it again at once, as a new attempt of the same invocation).
   */
  interrupted: z.boolean().optional(),
  /** The checkout as this attempt found it (recorded as its `checkoutStart`). */
  checkoutStart: checkoutObservationSchema.optional(),
  /** AI attempts: the provider's own account of a failure (its `retryAfterMs` delays the retry). */
  providerFailure: providerFailureSchema.optional(),
  /** AI attempts: input + output tokens as the provider reported them (a tokens-per-minute budget counts them). */
  tokens: z.number().nonnegative().optional(),
  /**
   * With `not_started`: the store could not record the attempt's start (a full disk), so its
   * program never ran; the supervisor side rebuilds this STORE_UNAVAILABLE and waits it out.
   */
  storeFault: z.object({ message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
  /**
   * With `holdEnd`: the attempt's terminal record, held by its thread and not written yet. The
   * pool keeps it until the thread says it is recorded, and writes it itself if the thread cannot.
   */
  heldEnd: newRunEventSchema.optional(),
  /** With `heldEnd`: the thread that holds it. */
  heldOn: z.number().int().optional(),
  /** Attempts whose held terminal record this thread has written since its last answer. */
  recordedEnds: z.array(z.string()).optional(),
});

/**
 * Asks a thread to write the terminal records it holds; it answers once each is settled, with the
 * ones it could not record. Every other end held by that thread is recorded; ends held by another
 * thread (one that ended) are not, and the pool writes those.
 */
export const FLUSH_ENDS_KIND = 'flush-ends';
export const flushEndsAnswerSchema = z.object({ threadId: z.number().int(), unrecordedEnds: z.array(z.string()) });
export type FlushEndsAnswer = z.infer<typeof flushEndsAnswerSchema>;
export type AttemptResult = z.infer<typeof attemptResultSchema>;

/** Posted on the `cairn.attempt-control` BroadcastChannel by the supervisor side. */
export const attemptControlSchema = z.discriminatedUnion('type', [
  /** `text`: what the attempt's record says stopped it, when not a user's cancel (a `cancel:` node). */
  z.object({ type: z.literal('cancel'), attemptId: z.string(), reason: z.enum(['cancelled', 'shutdown']), text: z.string().optional() }),
  /** Asks one thread whether its event loop still turns (answered by a `pong` notice). */
  z.object({ type: z.literal('ping'), threadId: z.number().int(), nonce: z.string() }),
]);
export type AttemptControl = z.infer<typeof attemptControlSchema>;

/** Posted on the same channel by workers: lets the supervisor side kill a group itself if a
 * worker stops answering. */
export const attemptNoticeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('spawned'),
    attemptId: z.string(),
    pid: z.number().int(),
    /** The worker thread running the attempt: the one to terminate if it stops answering. */
    threadId: z.number().int().optional(),
  }),
  z.object({ type: z.literal('exited'), attemptId: z.string() }),
  z.object({ type: z.literal('pong'), threadId: z.number().int(), nonce: z.string() }),
]);
export type AttemptNotice = z.infer<typeof attemptNoticeSchema>;

export const ATTEMPT_CONTROL_CHANNEL = 'cairn.attempt-control';
