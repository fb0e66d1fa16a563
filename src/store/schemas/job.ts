import { z } from 'zod';

/**
 * A job is a request from the API process to the supervisor. The API never changes run state
 * itself: it writes a job, and the supervisor that claims it acts.
 */
export const jobKindSchema = z.enum([
  'start_run', 'cancel_run', 'resume_run', 'abandon_run', 'delete_run', 'approve_run', 'reject_run', 'chat_turn', 'workflow_result',
  'wake_run', 'child_run_settled',
]);
/** Kinds whose claim records a cancel request on the run: whoever drives the run next ends it. */
export const cancellingJobKinds = ['cancel_run', 'abandon_run'] as const satisfies readonly JobKind[];
export type CancellingJobKind = (typeof cancellingJobKinds)[number];
export type JobKind = z.infer<typeof jobKindSchema>;
export const isCancellingJobKind = (kind: JobKind): kind is CancellingJobKind => (cancellingJobKinds as readonly JobKind[]).includes(kind);

/** The answers to a paused run's gate: at most one of them is open per run at a time. */
export const gateDecisionJobKinds = ['approve_run', 'reject_run'] as const satisfies readonly JobKind[];
export type GateDecisionJobKind = (typeof gateDecisionJobKinds)[number];

export const jobStatusSchema = z.enum(['queued', 'claimed', 'done']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const jobSchema = z.object({
  id: z.number().int(),
  kind: jobKindSchema,
  /** The run the job is about; null for a job of a conversation (a chat turn). */
  run_id: z.string().nullable(),
  /** The conversation (platform id) of a chat turn: one open turn per conversation at a time. */
  conversation_id: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  status: jobStatusSchema,
  lease_owner: z.string().nullable(),
  lease_expires_at: z.string().nullable(),
  created_at: z.string(),
  result: z.string().nullable(),
  /** How many times the job has been claimed, this claim included. */
  attempts: z.number().int().nonnegative(),
  /** Why the last attempt failed, when one did and the job was queued again. */
  last_error: z.string().nullable(),
  /** Not claimed before this moment (a sleeping run's `wake_run`); null: claimable at once. */
  not_before: z.string().nullable(),
});
export type Job = z.infer<typeof jobSchema>;
