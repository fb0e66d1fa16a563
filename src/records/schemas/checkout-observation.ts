import { z } from 'zod';

/**
 * What the checkout looked like when an invocation or attempt started. Evidence, not a policy
 * against dirty starts.
 */

const count = z.number().int().nonnegative();

/** Where the manifest of a dirty worktree's content is stored (a run artifact). */
export const manifestPointerSchema = z.strictObject({
  type: z.literal('service_artifact'),
  run_id: z.string(),
  path: z.string(),
});

export const worktreeStateSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('clean') }),
  z.strictObject({
    status: z.literal('dirty'),
    content: z.enum(['complete', 'incomplete']),
    staged: count,
    unstaged: count,
    untracked: count,
    manifest: z.strictObject({ pointer: manifestPointerSchema, sha256: z.string(), entries: count }),
  }),
]);
export type WorktreeState = z.infer<typeof worktreeStateSchema>;

export const checkoutUnavailableReasonSchema = z.enum(['git_failed', 'unsupported_backend', 'probe_failed']);
export type CheckoutUnavailableReason = z.infer<typeof checkoutUnavailableReasonSchema>;

export const checkoutObservationSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('git'),
    sampledAt: z.string(),
    commit: z.string().nullable(),
    tree: z.string().nullable(),
    worktree: worktreeStateSchema,
    cutFromCommit: z.string().optional(),
  }),
  /** A positively established non-git directory. */
  z.strictObject({ kind: z.literal('not_git'), sampledAt: z.string() }),
  z.strictObject({ kind: z.literal('unavailable'), sampledAt: z.string(), reason: checkoutUnavailableReasonSchema }),
]);
export type CheckoutObservation = z.infer<typeof checkoutObservationSchema>;
