import { z } from 'zod';
import { dashboardCountsSchema, dashboardRunSchema } from '../store/schemas/run-page.js';
import { runStatusSchema } from '../store/schemas/run.js';
import { isIsoDateText } from './iso-date.js';
import { RUN_LIST_DEFAULT_LIMIT, RUN_LIST_MAX_LIMIT } from './runs.js';

/**
 * `GET /api/dashboard/runs`: upstream's Command Center query (status, codebaseId, search, after,
 * before, limit, offset) and its answer `{ runs, total, counts }`. Like the run list, a limit out
 * of range is clamped and an unknown status is ignored, as upstream clients expect; a date that
 * is not a date, or names a day that does not exist, is refused (it would silently change what is
 * counted).
 */

const isoText = (field: string) =>
  z
    .string({ error: `${field} must be an ISO 8601 date or time` })
    .max(100, { error: `${field} must be an ISO 8601 date or time` })
    .refine(isIsoDateText, {
      error: `${field} must be an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`,
    })
    .transform((text) => new Date(text).toISOString());

export const DASHBOARD_MAX_OFFSET = 1_000_000_000;

export const dashboardQuerySchema = z.object({
  status: runStatusSchema.optional().catch(undefined).describe('Only runs in this status (an unknown status is ignored); counts ignore it'),
  codebaseId: z.string().min(1).max(300).optional().describe('Only runs on this codebase (owner/repo)'),
  workflow: z.string().min(1).max(300).optional().describe('Only runs of this workflow name (Cairn extension)'),
  search: z
    .string()
    .max(500, { error: 'search must be at most 500 characters' })
    .optional()
    .describe('Case-insensitive text the workflow name or the run’s message contains'),
  after: isoText('after').optional().describe('Only runs created at or after this time'),
  before: isoText('before').optional().describe('Only runs created before this time'),
  limit: z.coerce
    .number()
    .int()
    .optional()
    .catch(undefined)
    .describe(`Runs per page (default ${RUN_LIST_DEFAULT_LIMIT}, clamped to 1..${RUN_LIST_MAX_LIMIT})`),
  offset: z.coerce
    .number({ error: 'offset must be a non-negative integer' })
    .int({ error: 'offset must be a non-negative integer' })
    .min(0, { error: 'offset must be a non-negative integer' })
    .max(DASHBOARD_MAX_OFFSET, { error: `offset must be at most ${DASHBOARD_MAX_OFFSET}` })
    .optional()
    .describe('Runs to skip (default 0)'),
  mine: z.string().optional().describe('Accepted for upstream clients and ignored: Cairn has no users'),
});
export type DashboardQuery = z.infer<typeof dashboardQuerySchema>;

export const dashboardResponseSchema = z.object({
  runs: z.array(dashboardRunSchema.meta({ id: 'DashboardRun' })).describe('Newest first'),
  total: z.number().int().nonnegative().describe('Runs matching every filter, across all pages'),
  counts: dashboardCountsSchema.describe('Runs per status under the other filters (the status filter aside), and all'),
});
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;
