import type { RunEventView, WorkflowRun } from '../wire/runs.js';
import type { StressClient } from './stress-client.js';

/**
 * The recorded history the checks read: each run of the pass (the runs `cairn stress` started
 * and every run below them) with its event log reduced to the facts the checks need. Plain data,
 * so a test can build one by hand.
 */

export interface RecordedEvent {
  seq: number;
  type: string;
  /** The node path (`step_name`), null for run-level events. */
  path: string | null;
  attemptId: string | undefined;
  invocationId: string | undefined;
  interrupted: boolean;
  error: string | undefined;
  /** `created_at` in ms since the epoch. */
  at: number;
}

export interface RecordedRun {
  id: string;
  workflow: string;
  status: string;
  parentId: string | null;
  error: string | null;
  events: RecordedEvent[];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One event as the checks see it. */
export function recordEvent(event: RunEventView): RecordedEvent {
  const execution = event.data.execution as { attempt?: { id?: unknown }; invocation?: { id?: unknown } } | undefined;
  return {
    seq: event.seq,
    type: event.event_type,
    path: event.step_name,
    attemptId: text(execution?.attempt?.id),
    invocationId: text(execution?.invocation?.id),
    interrupted: event.data.interrupted === true,
    error: text(event.data.error),
    at: Date.parse(event.created_at),
  };
}

/** The runs among `all` that are `roots` or below one of them. */
export function runsBelow(all: readonly WorkflowRun[], roots: readonly string[]): WorkflowRun[] {
  const ours = new Set(roots);
  // Children may be listed before or after their parents: repeat until nothing is added.
  for (let added = true; added; ) {
    added = false;
    for (const run of all) {
      if (!ours.has(run.id) && run.parent_run_id !== null && ours.has(run.parent_run_id)) {
        ours.add(run.id);
        added = true;
      }
    }
  }
  return all.filter((run) => ours.has(run.id));
}

/** Reads the runs started as `roots` and their descendants, each with its whole event log. */
export async function readHistory(client: StressClient, roots: readonly string[]): Promise<RecordedRun[]> {
  const runs = runsBelow(await client.listRuns(), roots);
  const recorded: RecordedRun[] = [];
  for (const listed of runs) {
    const { run, events } = await client.readRun(listed.id);
    recorded.push({
      id: run.id,
      workflow: run.workflow_name,
      status: run.status,
      parentId: run.parent_run_id,
      error: run.error,
      events: events.map(recordEvent),
    });
  }
  return recorded;
}
