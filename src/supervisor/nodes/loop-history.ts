import { readFile } from 'node:fs/promises';
import { isInterrupted, readNodeEvent } from '../../records/index.js';
import type { LifecycleStatus } from '../../records/schemas/node-lifecycle.js';
import type { Output } from '../../records/schemas/node-output.js';
import type { RunEvent } from '../../store/schemas/event.js';
import { invocationIdentityOf, type InvocationIdentity } from '../run/node-handler.js';
import { LOOP_ITERATION_COMPLETED, LOOP_ITERATION_STARTED, type LoopStop } from '../../store/schemas/loop-events.js';

/** The latest record of one body node (or completion check) in one iteration. */
export interface RecordedBodyRow {
  status: LifecycleStatus;
  invocation: InvocationIdentity;
  /** Attempts started in that invocation. */
  attempts: number;
  /** Closed because a shutdown or a supervisor's death cut it short: it runs again. */
  interrupted: boolean;
  error?: string;
  output?: Output;
}

/** The answer a person gave at an interactive loop's pause after an iteration. */
export interface LoopAnswer {
  /** The approver's comment as given (empty when none): the next iteration's `$LOOP_USER_INPUT`. */
  input: string;
}

/** Flat key on an interactive loop's `approval_received`: the comment as given (no default text). */
export const USER_INPUT_KEY = 'user_input';

/**
 * What one invocation of a loop has recorded so far, read from the run's events: which
 * iterations completed and how their checks decided, the answers given at its pauses, and the
 * latest record of each body node per iteration. A loop continued after a take-over or an answer
 * picks up from here: a recorded iteration is never run again, nor a body node that completed
 * in the iteration under way.
 */
export class LoopHistory {
  /** The highest iteration with a `loop_iteration_completed` (0: none). */
  lastCompleted = 0;
  private readonly verdicts = new Map<number, { stop: LoopStop; signal: boolean }>();
  private readonly startedIterations = new Set<number>();
  private readonly answers = new Map<number, LoopAnswer>();
  private readonly suspensions = new Set<number>();
  private readonly rows = new Map<number, Map<string, RecordedBodyRow>>();
  private readonly attemptStarts = new Map<string, string>();

  constructor(events: readonly RunEvent[], path: string, invocationId: string) {
    let inScope = false;
    for (const event of events) {
      if (event.step_name === null) continue;
      if (event.step_name === path) {
        const row = readNodeEvent(event);
        if (row?.kind === 'lifecycle' && row.record?.invocation.id === invocationId) {
          inScope = true;
          if (row.status === 'started') this.attemptStarts.set(row.record.attempt.id, row.record.attempt.startedAt);
          const iteration = row.record.diagnostics?.iteration;
          if (row.status === 'suspended' && iteration !== undefined) this.suspensions.add(iteration);
          continue;
        }
        if (!inScope) continue;
        this.readLoopEvent(event, invocationId);
        continue;
      }
      if (inScope && event.step_name.startsWith(`${path}/`)) this.readBodyEvent(event, path);
    }
  }

  verdict(iteration: number): { stop: LoopStop; signal: boolean } | undefined {
    return this.verdicts.get(iteration);
  }

  started(iteration: number): boolean {
    return this.startedIterations.has(iteration);
  }

  answer(iteration: number): LoopAnswer | undefined {
    return this.answers.get(iteration);
  }

  /** The loop recorded its pause after this iteration (its `node_suspended`). */
  suspendedAfter(iteration: number): boolean {
    return this.suspensions.has(iteration);
  }

  /** The latest record of each body path in `iteration` (empty when none). */
  bodyRows(iteration: number): ReadonlyMap<string, RecordedBodyRow> {
    return this.rows.get(iteration) ?? new Map();
  }

  attemptStartedAt(attemptId: string): string | undefined {
    return this.attemptStarts.get(attemptId);
  }

  private readLoopEvent(event: RunEvent, invocationId: string): void {
    const data = event.data;
    const iteration = typeof data.iteration === 'number' ? data.iteration : undefined;
    if (iteration === undefined) return;
    if (event.event_type === 'approval_received') {
      if (data.decision === 'approved') this.answers.set(iteration, { input: typeof data[USER_INPUT_KEY] === 'string' ? data[USER_INPUT_KEY] : '' });
      return;
    }
    if (data.invocationId !== invocationId) return;
    if (event.event_type === LOOP_ITERATION_STARTED) this.startedIterations.add(iteration);
    if (event.event_type === LOOP_ITERATION_COMPLETED) {
      const stop = data.stop === 'signal' || data.stop === 'until_bash' ? data.stop : null;
      this.verdicts.set(iteration, { stop, signal: data.signal === true });
      this.lastCompleted = Math.max(this.lastCompleted, iteration);
    }
  }

  private readBodyEvent(event: RunEvent, path: string): void {
    const row = readNodeEvent(event);
    if (row?.kind !== 'lifecycle' || !row.record) return;
    const frame = row.record.invocation.loopPath.find((f) => f.groupId === path);
    if (!frame) return;
    let byPath = this.rows.get(frame.iteration);
    if (!byPath) this.rows.set(frame.iteration, (byPath = new Map()));
    const previous = byPath.get(row.path);
    const invocation = invocationIdentityOf(row.record.invocation);
    const sameInvocation = previous?.invocation.id === invocation.id;
    const attempts = (sameInvocation ? previous.attempts : 0) + (row.status === 'started' ? 1 : 0);
    const lifecycle = row.record.lifecycle;
    byPath.set(row.path, {
      status: row.status,
      invocation,
      attempts,
      interrupted: isInterrupted(event.data),
      ...(lifecycle.status === 'failed' ? { error: lifecycle.error } : {}),
      ...(row.output ? { output: row.output } : {}),
    });
  }
}

/** The whole text of a recorded output: its spill file when the stored text was cut. */
export async function fullText(output: Output | undefined): Promise<string> {
  if (!output) return '';
  const spill = output.persisted?.spillPath;
  if (output.persisted?.truncated && spill) {
    const text = await readFile(spill, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return output.text;
}
