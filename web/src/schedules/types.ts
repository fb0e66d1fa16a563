/** A schedule as `/api/schedules` and `/api/schedules/{id}` show it (src/wire/schedules.ts), with the fields the dashboard uses. */

export interface ScheduleFire {
  due_at: string;
  outcome: 'started' | 'skipped' | 'buffered' | 'missed' | 'failed';
  run_id: string | null;
  manual: boolean;
  reason: string | null;
  decided_at: string;
}

export interface ScheduleView {
  id: string;
  name: string;
  workflow_name: string;
  codebase_id: string | null;
  cron: string;
  timezone: string;
  overlap: string;
  paused: boolean;
  origin: 'api' | 'workflow';
  next_fire_times: string[];
}

export interface Schedule extends ScheduleView {
  fires: ScheduleFire[];
}

/** What a due time that comes while a run of the schedule is still open does (docs/schedules.md), `skip` first: the default. */
export const overlapPolicies = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all'] as const;

export const schedulePath = (id: string) => `/api/schedules/${encodeURIComponent(id)}`;
