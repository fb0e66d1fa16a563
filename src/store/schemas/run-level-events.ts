import { z } from 'zod';
import type { NewRunEvent, RunEvent } from './event.js';
import type { Run, RunStatus } from './run.js';

/**
 * The run-level events (`workflow_*`, `step_name` null) and the `data` each carries: the one
 * definition the supervisor writes with and the API, its SSE frames and the CLI read with. Node
 * events are the execution-record contract's and live in `records/event-types.ts`.
 *
 * Data schemas are loose: a row written by another version may carry more keys, and keeps them.
 */

/**
 * Written with the pending run itself (one transaction), before any supervisor starts it: so a
 * run is announced the moment it exists, even while no supervisor can take it yet. Announces no
 * status (a run is never announced pending); streams carry it as a `workflow_event`.
 */
export const workflowQueuedDataSchema = z.looseObject({ workflowName: z.string() });
export type WorkflowQueuedData = z.infer<typeof workflowQueuedDataSchema>;

export const workflowStartedDataSchema = z.looseObject({
  workflowName: z.string(),
  supervisorId: z.string(),
  workingPath: z.string().nullable(),
  /** Names of the run's inputs (values stay in the run row). */
  inputs: z.array(z.string()),
});
export type WorkflowStartedData = z.infer<typeof workflowStartedDataSchema>;

/**
 * Written right after `workflow_started` when the workflow file has keys the engine ignores;
 * later in a run, for a node's `output_type` files that could not be written (best-effort).
 */
export const workflowParseWarningsDataSchema = z.looseObject({ warnings: z.array(z.string()).min(1) });
export type WorkflowParseWarningsData = z.infer<typeof workflowParseWarningsDataSchema>;

export const workflowCompletedDataSchema = z.looseObject({ duration_ms: z.number().nonnegative() });
export type WorkflowCompletedData = z.infer<typeof workflowCompletedDataSchema>;

/**
 * When a run waits out a provider's usage limit (`auto_resume` of the workflow): when it resumes
 * by itself, the nodes whose limit it waits for, and which of its automatic resumes that is.
 */
export const autoResumeDataSchema = z.looseObject({
  at: z.string(),
  nodes: z.array(z.string()),
  resume: z.number().int().positive(),
  of: z.number().int().positive(),
});
export type AutoResumeData = z.infer<typeof autoResumeDataSchema>;

/** `duration_ms` is absent when the run failed before its nodes ran (it could not be started). */
export const workflowFailedDataSchema = z.looseObject({
  error: z.string(),
  duration_ms: z.number().nonnegative().optional(),
  auto_resume: autoResumeDataSchema.optional(),
});
export type WorkflowFailedData = z.infer<typeof workflowFailedDataSchema>;

export const workflowCancelledDataSchema = z.looseObject({ reason: z.string() });
export type WorkflowCancelledData = z.infer<typeof workflowCancelledDataSchema>;

/** Named by the upstream clients; written once pausing (approval gates) and resume land. */
export const workflowPausedDataSchema = z.looseObject({ reason: z.string().optional() });
export type WorkflowPausedData = z.infer<typeof workflowPausedDataSchema>;
/** `error`: the run's error that the resume cleared (upstream's key); `resumedFrom`: the status it left. */
export const workflowResumedDataSchema = z.looseObject({
  error: z.string().optional(),
  resumedFrom: z.string().optional(),
  supervisorId: z.string().optional(),
  /** Resumed by itself after a provider's usage limit reset (`auto_resume`), not by a person. */
  auto: z.boolean().optional(),
  /** Asked to take the workflow, its command files and scripts as they are on disk now (`workflow_reloaded` follows). */
  reload: z.boolean().optional(),
});
export type WorkflowResumedData = z.infer<typeof workflowResumedDataSchema>;

/**
 * Written before `workflow_failed` when every node ended well but a file the workflow's
 * `evidence_policy` requires is not under `$ARTIFACTS_DIR`: which, and why each does not count.
 */
export const evidenceValidationFailedDataSchema = z.looseObject({
  required: z.array(z.string()),
  missing: z.array(z.looseObject({ path: z.string(), why: z.string() })),
});
export type EvidenceValidationFailedData = z.infer<typeof evidenceValidationFailedDataSchema>;

/** One file of a run's copy whose content a reload changed: its hash before and after (null: not found). */
export const reloadedFileDataSchema = z.looseObject({
  kind: z.enum(['command', 'script']),
  name: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type ReloadedFileData = z.infer<typeof reloadedFileDataSchema>;

/**
 * Written when a resume with `reload` took the workflow, its command files and its scripts as
 * they are on disk now (in the transaction that stores the new copy): the definition's hash before
 * and after, and each file whose content changed, appeared or went.
 */
export const workflowReloadedDataSchema = z.looseObject({
  workflow: z.looseObject({ before: z.string().nullable(), after: z.string() }),
  changed: z.array(reloadedFileDataSchema),
});
export type WorkflowReloadedData = z.infer<typeof workflowReloadedDataSchema>;

/** Each run-level event type with the schema of its `data`. */
export const runLevelEventDataSchemas = {
  workflow_queued: workflowQueuedDataSchema,
  workflow_started: workflowStartedDataSchema,
  workflow_parse_warnings: workflowParseWarningsDataSchema,
  workflow_completed: workflowCompletedDataSchema,
  workflow_failed: workflowFailedDataSchema,
  workflow_cancelled: workflowCancelledDataSchema,
  workflow_paused: workflowPausedDataSchema,
  workflow_resumed: workflowResumedDataSchema,
  workflow_reloaded: workflowReloadedDataSchema,
  evidence_validation_failed: evidenceValidationFailedDataSchema,
} as const;

export const runLevelEventTypeSchema = z.enum(
  Object.keys(runLevelEventDataSchemas) as [keyof typeof runLevelEventDataSchemas, ...(keyof typeof runLevelEventDataSchemas)[]],
);
export type RunLevelEventType = z.infer<typeof runLevelEventTypeSchema>;
export type RunLevelEventData<T extends RunLevelEventType> = z.infer<(typeof runLevelEventDataSchemas)[T]>;

/** The run status each event announces; `workflow_queued`, `workflow_parse_warnings` and `workflow_reloaded` announce none. */
export const runStatusByRunLevelEvent = {
  workflow_queued: undefined,
  workflow_started: 'running',
  workflow_parse_warnings: undefined,
  workflow_completed: 'completed',
  workflow_failed: 'failed',
  workflow_cancelled: 'cancelled',
  workflow_paused: 'paused',
  workflow_resumed: 'running',
  workflow_reloaded: undefined,
  evidence_validation_failed: undefined,
} as const satisfies Record<RunLevelEventType, RunStatus | undefined>;

export function isRunLevelEventType(eventType: string): eventType is RunLevelEventType {
  return Object.hasOwn(runLevelEventDataSchemas, eventType);
}

/** The run status an event type announces, if it is a run-level event that announces one. */
export function runStatusOfEvent(eventType: string): Exclude<RunStatus, 'pending'> | undefined {
  return isRunLevelEventType(eventType) ? runStatusByRunLevelEvent[eventType] : undefined;
}

/** A run-level event to append, with `data` checked by the compiler against its type. */
export function newRunLevelEvent<T extends RunLevelEventType>(
  run: Pick<Run, 'id' | 'conversation_id'>,
  eventType: T,
  data: RunLevelEventData<T>,
): NewRunEvent {
  return { run_id: run.id, conversation_id: run.conversation_id, event_type: eventType, step_name: null, data };
}

/**
 * The typed `data` of a stored event of type `eventType`, or undefined when the event is of
 * another type or its data does not fit (a reader shows what it can instead of failing).
 */
export function readRunLevelEventData<T extends RunLevelEventType>(
  event: Pick<RunEvent, 'event_type' | 'data'>,
  eventType: T,
): RunLevelEventData<T> | undefined {
  if (event.event_type !== eventType) return undefined;
  const parsed = runLevelEventDataSchemas[eventType].safeParse(event.data);
  return parsed.success ? (parsed.data as RunLevelEventData<T>) : undefined;
}
