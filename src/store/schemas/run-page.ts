import { z } from 'zod';
import { runSchema, runStatusSchema } from './run.js';

/**
 * Pages of runs: the run list's cursor pages and the dashboard's offset pages, with the facts
 * the dashboard adds to each run (upstream's "enriched" run). One definition for the store that
 * fills them and the wire schemas that describe them.
 */

/** Where a run-list page ended: the last run's `created_at` and row id (its insertion order). */
export const runCursorSchema = z.object({ createdAt: z.string(), rowid: z.number().int() });
export type RunCursor = z.infer<typeof runCursorSchema>;

/** What the dashboard adds to a run, read from its codebase, conversation and events. */
export const dashboardRunFactsSchema = z.object({
  codebase_name: z.string().nullable().describe('The name of the run’s codebase (owner/repo), or null'),
  platform_type: z.string().nullable().describe('The platform of the run’s conversation (web)'),
  worker_platform_id: z.string().describe('The run’s conversation (its platform id)'),
  parent_platform_id: z.string().nullable().describe('The chat a /workflow run was dispatched from, or null'),
  current_step_name: z.string().nullable().describe('The node of the run’s latest node event, or null before any'),
  current_step_status: z
    .enum(['running', 'completed', 'failed', 'skipped'])
    .nullable()
    .describe('That event as a node status: running, completed, failed or skipped'),
  total_steps: z.number().int().nonnegative().describe('Nodes in the run’s definition'),
  agents_completed: z.number().int().nonnegative().describe('Nodes that completed'),
  agents_failed: z.number().int().nonnegative().describe('Nodes whose latest attempt failed'),
  agents_total: z.number().int().nonnegative().describe('Nodes in the run’s definition (same as total_steps)'),
});
export type DashboardRunFacts = z.infer<typeof dashboardRunFactsSchema>;

export const dashboardRunSchema = runSchema.extend(dashboardRunFactsSchema.shape);
export type DashboardRun = z.infer<typeof dashboardRunSchema>;

/** Runs per status under the dashboard's filters (the status filter aside), and all of them. */
export const dashboardCountsSchema = z.object({
  all: z.number().int().nonnegative(),
  ...Object.fromEntries(runStatusSchema.options.map((status) => [status, z.number().int().nonnegative()])),
} as Record<'all' | z.infer<typeof runStatusSchema>, z.ZodNumber>);
export type DashboardCounts = z.infer<typeof dashboardCountsSchema>;
