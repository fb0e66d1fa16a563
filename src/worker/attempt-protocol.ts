import { z } from 'zod';
import { checkoutObservationSchema } from '../records/schemas/checkout-observation.js';
import { execRuntimeSchema } from '../records/schemas/node-descriptor.js';
import { effortSchema } from '../records/schemas/execution-record.js';
import { providerFailureSchema } from '../records/schemas/node-lifecycle.js';
import { agentOptionsSchema } from '../shared/providers/agent-options.js';
import { providerIdSchema } from '../shared/providers/registry.js';
import { storeConfigSchema } from '../store/store-config.js';

/**
 * Messages between the supervisor (main thread) and a worker thread. They are structured-cloned,
 * so they are plain data, parsed with these schemas on the receiving side.
 */

export { execRuntimeSchema, type ExecRuntime } from '../records/schemas/node-descriptor.js';

/** One attempt of an exec node (bash, or a bun/uv script), fully resolved by the supervisor. */
export const execAttemptTaskSchema = z.object({
  kind: z.literal('exec'),
  /** The database the worker records the attempt in (each thread opens its own Store). */
  store: storeConfigSchema,
  runId: z.string(),
  conversationId: z.string(),
  /** The node's path in the run (its id for a top-level node). */
  path: z.string(),
  nodeId: z.string(),
  runtime: execRuntimeSchema,
  /** Upstream `type` flat key: `bash` for bash nodes, `script` for script nodes. */
  legacyType: z.enum(['bash', 'script']),
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
  /** The script body after variable substitution (bash), or the script code / file (bun, uv). */
  script: z.string(),
  /** Dependencies for uv scripts (`deps:`). */
  deps: z.array(z.string()).default([]),
  cwd: z.string(),
  /** Added to the worker's environment for the child (inputs, user-controlled variables). */
  env: z.record(z.string(), z.string()),
  /** `block`: runtimes that load the cwd's `.env` files on their own (bun) are told not to (the env-leak gate). */
  envFiles: z.enum(['load', 'block']).default('load'),
  timeoutMs: z.number().int().positive(),
  killGraceMs: z.number().int().nonnegative(),
  /** Where the full output is written when it is longer than an event row's preview (the
   * run's artifacts); the record names the file so a later reader gets every byte. */
  outputSpillDir: z.string(),
  /** The run's `$ARTIFACTS_DIR`: a dirty checkout's manifest is written under it. Omitted: no checkout sample. */
  artifactsDir: z.string().optional(),
});
export type ExecAttemptTask = z.input<typeof execAttemptTaskSchema>;

/** One attempt of an AI node (`prompt` / `command`), its prompt substituted and its binding resolved. */
export const agentAttemptTaskSchema = z.object({
  kind: z.literal('agent'),
  /** Written on the attempt's terminal record, as for exec attempts (a loop iteration's). */
  diagnostics: execAttemptTaskSchema.shape.diagnostics,
  store: storeConfigSchema,
  runId: z.string(),
  conversationId: z.string(),
  path: z.string(),
  nodeId: z.string(),
  /** `inline` for a prompt node, `command` (with its file's name) for a command node. */
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('inline') }),
    z.object({ kind: z.literal('command'), name: z.string() }),
  ]),
  invocation: execAttemptTaskSchema.shape.invocation,
  attempt: execAttemptTaskSchema.shape.attempt,
  lostBefore: execAttemptTaskSchema.shape.lostBefore,
  prompt: z.string(),
  provider: providerIdSchema,
  /** The model asked for, as resolved from node, workflow and config; absent: the provider's default. */
  model: z.string().optional(),
  effort: effortSchema.optional(),
  outputFormat: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().optional(),
  /** The permission level and the node's provider options (shared/providers/agent-options.ts). */
  options: agentOptionsSchema,
  cwd: z.string(),
  /** How to reach the provider. Holds the credential: never logged, never recorded. */
  connection: z.object({
    baseUrl: z.string().optional(),
    apiKey: z.string().optional(),
    /** A subscription login's bearer token (Anthropic), in place of apiKey. */
    authToken: z.string().optional(),
    binaryPath: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
  }),
  /**
   * Masked in everything the provider says before it is recorded, streamed or logged: the keys
   * of `connection`, the run's sealed `config.env` values and the install's configured secrets
   * (shared/secret-mask.ts). Never logged, never recorded.
   */
  secrets: z.array(z.string()).default([]),
  /** The session to continue: a retry's own, a loop's previous iteration's, or a source node's (private: never logged or recorded). */
  resumeSessionId: z.string().optional(),
  /** Set when the session to continue is another node's (`context: shared` / `{ resume }`): that node, and whether to fork it. */
  sessionSource: z.object({ nodeId: z.string(), fork: z.boolean() }).optional(),
  /** A folder kept across the node's attempts in this run, for a CLI's own session store. */
  sessionDir: z.string().optional(),
  /** The first-event watchdog: no chunk from the provider this long after the start fails the attempt. */
  firstEventTimeoutMs: z.number().int().positive(),
  /** The idle watchdog: no chunk for this long after the first fails the attempt. */
  idleTimeoutMs: z.number().int().positive(),
  killGraceMs: z.number().int().nonnegative(),
  outputSpillDir: z.string(),
  artifactsDir: z.string().optional(),
  /** The attempt's own folder (its prompt file), under the run's artifacts. */
  scratchDir: z.string(),
});
export type AgentAttemptTask = z.input<typeof agentAttemptTaskSchema>;

export const attemptTaskSchema = z.discriminatedUnion('kind', [execAttemptTaskSchema, agentAttemptTaskSchema]);
export type AttemptTask = ExecAttemptTask | AgentAttemptTask;

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
});
export type AttemptResult = z.infer<typeof attemptResultSchema>;

/** Posted on the `cairn.attempt-control` BroadcastChannel by the supervisor side. */
export const attemptControlSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('cancel'), attemptId: z.string(), reason: z.enum(['cancelled', 'shutdown']) }),
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
