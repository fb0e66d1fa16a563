import { z } from 'zod';
import { overlapPolicySchema } from '../../shared/overlap-policy.js';

export { overlapPolicySchema, type OverlapPolicy } from '../../shared/overlap-policy.js';

/** Where a schedule comes from: made over the API (or `cairn schedule add`), or declared in a workflow's `triggers:`. */
export const scheduleOriginSchema = z.enum(['api', 'workflow']);
export type ScheduleOrigin = z.infer<typeof scheduleOriginSchema>;

/** A stored schedule (snake_case, as the API shows it). */
export const scheduleSchema = z.object({
  id: z.string(),
  name: z.string().describe('Unique; a declared trigger is named <workflow>#<index>, or <codebase>:<workflow>#<index>'),
  workflow_name: z.string(),
  codebase_id: z.string().nullable().describe('The registered codebase its runs work on; null: none'),
  inputs: z.record(z.string(), z.string()),
  cron: z.string(),
  timezone: z.string().describe('An IANA time zone name: the cron expression is read in its wall-clock time'),
  overlap: overlapPolicySchema,
  catch_up_ms: z.number().int().min(0).describe('Due times missed by at most this much (downtime) still run; older ones are recorded missed'),
  paused: z.boolean(),
  origin: scheduleOriginSchema,
  /** The newest due time decided (ISO): the fire loop looks for due times after it. */
  cursor_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/**
 * What became of one due time: `started` (a run was created), `skipped` (overlap), `buffered`
 * (waits for the open run to end; becomes `started`), `missed` (older than the catch-up window when
 * seen), `failed` (the run could not be made: the workflow is gone or its inputs no longer fit).
 */
export const fireOutcomeSchema = z.enum(['started', 'skipped', 'buffered', 'missed', 'failed']);
export type FireOutcome = z.infer<typeof fireOutcomeSchema>;

export const scheduleFireSchema = z.object({
  schedule_id: z.string(),
  due_at: z.string().describe('The due time (ISO); unique per schedule: each due time is decided once'),
  outcome: fireOutcomeSchema,
  run_id: z.string().nullable(),
  manual: z.boolean().describe('A "run now" request rather than a cron due time'),
  reason: z.string().nullable(),
  decided_at: z.string(),
  started_at: z.string().nullable(),
});
export type ScheduleFire = z.infer<typeof scheduleFireSchema>;
