import { z } from 'zod';

/**
 * `GET /api/workflows/runs/{runId}/diff`: what a run's agents and commands changed in its
 * worktree, against the run's base branch, or what one attempt changed (`attempt`).
 */
export const runDiffQuerySchema = z.object({
  attempt: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('An attempt id (execution.attempt.id of a node event, attemptId of the logs route): the diff of that attempt alone'),
});

export const runDiffFileSchema = z.object({
  path: z.string().describe('The file’s path in the repository (its new path for a rename)'),
  added: z.number().int().nonnegative().nullable().describe('Lines added; null for a binary file'),
  removed: z.number().int().nonnegative().nullable().describe('Lines removed; null for a binary file'),
});

export const runDiffResponseSchema = z.object({
  runId: z.string(),
  scope: z.enum(['run', 'attempt']),
  attemptId: z.string().nullable().describe('The attempt asked for; null for the run'),
  path: z.string().nullable().describe('The node path of that attempt; null for the run'),
  branch: z.string().describe('The run’s branch'),
  base: z.string().nullable().describe('The base branch the run’s diff is against; null for an attempt'),
  from: z.string().describe('The commit the diff starts from: the merge base with the base branch, or the commit the attempt started on'),
  to: z
    .string()
    .nullable()
    .describe('The commit it ends at; null for the worktree’s files as they are now (changes not committed yet and new files included)'),
  files: z.array(runDiffFileSchema),
  diff: z.string().describe('The unified diff (git diff), at most 1 MiB'),
  truncated: z.boolean().describe('True when the diff text was cut at 1 MiB (files still lists every file), or the worktree has more than 200 new files (the first 200 are shown)'),
});
export type RunDiffResponse = z.infer<typeof runDiffResponseSchema>;
