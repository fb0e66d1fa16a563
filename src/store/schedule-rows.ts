import type { Schedule, ScheduleFire } from './schemas/schedule.js';
import { fireOutcomeSchema, overlapPolicySchema, scheduleOriginSchema } from './schemas/schedule.js';

/** Row → object conversions of the schedule tables, shared by both backends (same column shapes). */
type Row = Record<string, unknown>;

export function toSchedule(row: Row): Schedule {
  return {
    id: String(row.id),
    name: String(row.name),
    workflow_name: String(row.workflow_name),
    codebase_id: row.codebase_id === null ? null : String(row.codebase_id),
    inputs: JSON.parse(String(row.inputs)) as Record<string, string>,
    cron: String(row.cron),
    timezone: String(row.timezone),
    overlap: overlapPolicySchema.parse(row.overlap),
    catch_up_ms: Number(row.catch_up_ms),
    paused: Number(row.paused) === 1,
    origin: scheduleOriginSchema.parse(row.declared_in === null ? 'api' : 'workflow'),
    cursor_at: String(row.cursor_at),
    created_at: String(row.created_at),
    updated_at: String(row.updated_at),
  };
}

export function toScheduleFire(row: Row): ScheduleFire {
  return {
    schedule_id: String(row.schedule_id),
    due_at: String(row.due_at),
    outcome: fireOutcomeSchema.parse(row.outcome),
    run_id: row.run_id === null ? null : String(row.run_id),
    manual: Number(row.manual) === 1,
    reason: row.reason === null ? null : String(row.reason),
    decided_at: String(row.decided_at),
    started_at: row.started_at === null ? null : String(row.started_at),
  };
}
