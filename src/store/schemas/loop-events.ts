import type { NewRunEvent } from './event.js';
import type { Run } from './run.js';

/**
 * The run events a loop (`loop:` or `loop_group:`) writes at its own path around each iteration
 * (REFERENCE §3.5): `loop_iteration_started`, then `loop_iteration_completed` (with how the
 * completion checks decided) or `loop_iteration_failed`. `loop_iteration_completed` is also the
 * loop's durable progress: an iteration it names is never run again by a take-over.
 */
export const LOOP_ITERATION_STARTED = 'loop_iteration_started';
export const LOOP_ITERATION_COMPLETED = 'loop_iteration_completed';
export const LOOP_ITERATION_FAILED = 'loop_iteration_failed';

/** How an iteration's completion checks decided: `signal` / `until_bash` ended the loop, `null` did not. */
export type LoopStop = 'signal' | 'until_bash' | null;

export interface IterationFacts {
  /** The loop's invocation: iterations of another invocation (an earlier pass) are not this loop's progress. */
  invocationId: string;
  iteration: number;
  maxIterations: number;
}

function loopEvent(run: Pick<Run, 'id' | 'conversation_id'>, path: string, type: string, data: Record<string, unknown>): NewRunEvent {
  return { run_id: run.id, conversation_id: run.conversation_id, event_type: type, step_name: path, data };
}

export function iterationStartedEvent(run: Pick<Run, 'id' | 'conversation_id'>, path: string, facts: IterationFacts): NewRunEvent {
  return loopEvent(run, path, LOOP_ITERATION_STARTED, { ...facts });
}

export function iterationCompletedEvent(
  run: Pick<Run, 'id' | 'conversation_id'>,
  path: string,
  facts: IterationFacts & { durationMs: number; stop: LoopStop; signal: boolean },
): NewRunEvent {
  const { durationMs, ...rest } = facts;
  return loopEvent(run, path, LOOP_ITERATION_COMPLETED, { ...rest, duration_ms: durationMs });
}

export function iterationFailedEvent(
  run: Pick<Run, 'id' | 'conversation_id'>,
  path: string,
  facts: IterationFacts & { durationMs: number; error: string },
): NewRunEvent {
  const { durationMs, ...rest } = facts;
  return loopEvent(run, path, LOOP_ITERATION_FAILED, { ...rest, duration_ms: durationMs });
}
