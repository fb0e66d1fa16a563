import { z } from 'zod';
import { overlapPolicySchema } from '../shared/overlap-policy.js';
import { scheduleFireSchema, scheduleSchema } from '../store/schemas/schedule.js';

/** `/api/schedules`: the HTTP shapes, shared by the API and `cairn schedule`. */

/** A name of one's own: declared schedules take `<workflow>#<n>` names, which no API name can be. */
export const scheduleNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'name: 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit');

export const createScheduleBodySchema = z.strictObject({
  name: scheduleNameSchema,
  workflow: z.string().trim().min(1).describe('The workflow to run, found as a run request finds it (the codebase’s project first)'),
  codebaseId: z.string().min(1).optional().describe('A registered codebase the runs work on (each in its own worktree)'),
  inputs: z.record(z.string(), z.string()).optional().describe('Run inputs, checked against the workflow’s declared inputs'),
  cron: z.string().trim().min(1).describe("Five fields (minute hour day month weekday, e.g. '0 3 * * *') or six with seconds first"),
  timezone: z.string().trim().min(1).optional().describe('An IANA time zone name (default UTC); the cron expression is read in its wall-clock time'),
  overlap: overlapPolicySchema.optional().describe('When a due time comes while a run of the schedule is open (default skip)'),
  catchUp: z.string().trim().min(1).optional().describe("Due times missed by at most this much still run (default '1h'): '30s', '15m', '2h', '1d' or '0'"),
  paused: z.boolean().optional(),
});
export type CreateScheduleBody = z.infer<typeof createScheduleBodySchema>;

export const schedulePreviewBodySchema = z.strictObject({
  cron: z.string().describe('The cron expression as typed so far'),
  timezone: z.string().trim().min(1).optional().describe('An IANA time zone name (default UTC)'),
});

export const schedulePreviewSchema = z.object({
  next_fire_times: z.array(z.string()).describe('The next 5 due times (ISO) of a schedule made now with this expression and zone; none when it cannot be used'),
  problem: z.string().nullable().describe('Why the expression or the zone cannot be used, as creating the schedule would say; null when they can'),
});
export type SchedulePreview = z.infer<typeof schedulePreviewSchema>;

export const scheduleParamsSchema = z.object({ id: z.string().min(1).describe('The schedule’s id or name') });

export const scheduleViewSchema = scheduleSchema.extend({
  next_fire_times: z.array(z.string()).describe('The next 5 due times (ISO), none while paused'),
});
export type ScheduleView = z.infer<typeof scheduleViewSchema>;

export const scheduleDetailSchema = scheduleViewSchema.extend({
  fires: z.array(scheduleFireSchema).describe('What became of its latest due times, newest first (up to 20)'),
});
export type ScheduleDetail = z.infer<typeof scheduleDetailSchema>;

export const scheduleListResponseSchema = z.object({ schedules: z.array(scheduleViewSchema) });

export const runNowResponseSchema = z.object({
  fire: scheduleFireSchema.describe('The run-now fire: started, or skipped / buffered by the overlap policy'),
  runId: z.string().nullable().describe('The run it started, or null'),
  cancelled: z.array(z.string()).describe('Runs asked to cancel (overlap cancel_other)'),
});
export type RunNowResponse = z.infer<typeof runNowResponseSchema>;

export const scheduleDeleteResponseSchema = z.object({ deleted: z.literal(true), id: z.string() });
