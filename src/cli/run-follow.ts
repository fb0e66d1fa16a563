import type { WorkflowRun } from '../wire/runs.js';
import { fanOutGridSchema } from '../wire/fan-out.js';
import type { ApiClient } from './api-client.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_PAUSED } from '../terminal/cli-error.js';
import { writeLine, type CliContext } from '../terminal/context.js';
import { formatDuration, type Style } from '../terminal/format.js';
import { pausedHint, readPauseTarget } from './paused-hint.js';
import { followRunEvents } from './run-events-follow.js';
import { printRunOutputs, readRunOutputs, type OutputMode } from './run-output.js';
import type { ActivityDetail } from './agent-activity-lines.js';
import { createRunProgress, isFinal, outcomeOf, type RunOutcome } from './run-progress.js';

/**
 * Showing a run live, as `cairn workflow run` and `cairn run follow` both do: a line per node
 * event while it goes, the gate's answers when it pauses, the outputs and a one-line verdict when
 * it ends, and the exit status of each outcome.
 */

export interface FollowResult {
  outcome: RunOutcome | undefined;
  /** The run paused (at a gate, or on a budget): why. */
  paused?: { reason: string | undefined };
  interrupted: boolean;
  /** The run as its recorded events' last page showed it (following from the recorded events only). */
  recordedRun?: WorkflowRun;
}

export interface FollowRunOptions {
  json: boolean;
  style: Style;
  /** At a gate, print its answers and go on following (a terminal); else stop with `paused`. */
  waitAtGates: boolean;
  /** What to say, when waiting at a gate, that Ctrl-C does. */
  whileWaiting: string;
  /** Where the frames start (see followRunEvents): the run's recorded events, or a conversation's first. */
  from: 'recorded' | { conversationId: string };
  /** Following from the recorded events: called with the run before they are shown. */
  onRun?(run: WorkflowRun): void;
  /** How much of the agents' work to show (`--quiet`, `--verbose`); normal unless told. */
  activity?: ActivityDetail;
}

/** Follows the run's events until it ends, pauses (unless waiting at gates) or the user presses Ctrl-C. */
export async function followRun(ctx: CliContext, client: ApiClient, runId: string, opts: FollowRunOptions): Promise<FollowResult> {
  const controller = new AbortController();
  let interrupted = false;
  const removeInterrupt = ctx.onInterrupt(() => {
    interrupted = true;
    controller.abort(new Error('interrupted'));
  });
  const progress = createRunProgress({
    runId, out: ctx.stdout, style: opts.style, activity: opts.activity ?? 'normal',
    // Items that run as child runs are counted by the server (the fan-out grid's counts).
    fetchFanOutCounts: async (nodeId) => {
      const path = `/api/workflows/runs/${encodeURIComponent(runId)}/fan-out/${encodeURIComponent(nodeId)}?limit=1`;
      const { body } = await client.request('GET', path, fanOutGridSchema, { signal: controller.signal });
      const c = body.counts;
      return { total: body.total, completed: c.completed ?? 0, failed: (c.failed ?? 0) + (c.cancelled ?? 0), running: (c.running ?? 0) + (c.paused ?? 0) };
    },
  });
  let outcome: RunOutcome | undefined;
  let paused: FollowResult['paused'];
  let recordedRun: WorkflowRun | undefined;
  // A pause among the recorded events counts only if the run is still paused when they end.
  let recordedPause: { reason: string | undefined } | undefined;
  const onPaused = (reason: string | undefined): boolean => {
    if (!opts.waitAtGates) {
      paused = { reason };
      return true;
    }
    if (!opts.json) void printPaused(ctx, client, runId, reason, opts.style, opts.whileWaiting);
    return false;
  };
  try {
    await followRunEvents({
      client,
      runId,
      signal: controller.signal,
      from: opts.from,
      handler: {
        recordedStart(run) {
          opts.onRun?.(run);
        },
        frame(frame, json, recorded) {
          if (opts.json && !(frame?.type === 'heartbeat')) writeLine(ctx.stdout, JSON.stringify(json));
          if (!frame) return false;
          if (!opts.json) progress.print(frame);
          outcome = outcomeOf(frame, runId);
          if (outcome) return true;
          if (frame.type !== 'workflow_status' || frame.runId !== runId) return false;
          if (frame.status !== 'paused') {
            recordedPause = undefined;
            return false;
          }
          if (recorded) {
            recordedPause = { reason: frame.reason };
            return false;
          }
          return onPaused(frame.reason);
        },
        async recordedEnd(run) {
          recordedRun = run;
          if (isFinal(run.status)) {
            // Its final event was not among those read (written between two reads): the row says.
            outcome = { status: run.status, error: run.error };
            return true;
          }
          if (run.status !== 'paused') return false;
          // Blocked on a child run that was answered already: it goes on when the child ends.
          if (await waitsOnAnsweredChild(client, run, controller.signal)) return false;
          return onPaused(recordedPause?.reason ?? approvalMessage(run));
        },
        onReconnect({ lastEventId, attempt, error }) {
          if (attempt !== 1) return;
          const reason = error instanceof Error ? error.message : String(error);
          writeLine(ctx.stderr, opts.style.dim(`Lost the event stream (${reason}); reconnecting after event ${lastEventId}…`));
        },
      },
    });
    if (!opts.json && outcome) await progress.finish();
  } catch (err) {
    if (!interrupted) throw err;
  } finally {
    removeInterrupt();
  }
  return { outcome, interrupted, ...(paused ? { paused } : {}), ...(recordedRun ? { recordedRun } : {}) };
}

/**
 * A run paused on a child run (a `workflow:` node) stays paused until that child ends, answered
 * or not: it waits for a person only while the child (or its own child) is paused too.
 */
export async function waitsOnAnsweredChild(client: ApiClient, run: WorkflowRun, signal: AbortSignal): Promise<boolean> {
  if (run.metadata.approval?.type !== 'child_workflow') return false;
  const target = await readPauseTarget(client, run.id, signal);
  return target.chain.length > 0 && target.status !== undefined && target.status !== 'paused';
}

function approvalMessage(run: WorkflowRun): string | undefined {
  const message = run.metadata.approval?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/** What a paused run waits for and the commands that get it going: a gate's answers, or a resume with more budget. */
export async function printPaused(ctx: CliContext, client: ApiClient, runId: string, reason: string | undefined, style: Style, then?: string): Promise<void> {
  const hint = await pausedHint(client, runId);
  writeLine(ctx.stdout, style.yellow(`Run ${runId} is paused${reason ? `: ${reason}` : '.'}`));
  for (const line of hint) writeLine(ctx.stdout, line);
  if (then) writeLine(ctx.stdout, then);
}

/**
 * The end of following a run that paused or ended (not one interrupted): the paused run's
 * answers (exit 3), the completed run's outputs and time (exit 0), or why it failed or was
 * cancelled (exit 1). `took` is how long the run took, in ms, when it completed.
 */
export async function reportFollowEnd(
  ctx: CliContext,
  client: ApiClient,
  runId: string,
  result: FollowResult,
  opts: { json: boolean; style: Style; outputMode: OutputMode; took: () => number },
): Promise<number> {
  const { json, style } = opts;
  if (result.paused) {
    if (!json) await printPaused(ctx, client, runId, result.paused.reason, style);
    return EXIT_PAUSED;
  }
  const outcome = result.outcome;
  if (outcome?.status === 'completed') {
    if (json) return EXIT_OK;
    printRunOutputs(ctx.stdout, runId, await readRunOutputs(client, runId, opts.outputMode), style);
    writeLine(ctx.stdout, style.green(`Run ${runId} completed in ${formatDuration(opts.took())}.`));
    return EXIT_OK;
  }
  const what = outcome?.status === 'cancelled' ? 'was cancelled' : 'failed';
  writeLine(ctx.stderr, style.red(`Run ${runId} ${what}${outcome?.error ? `: ${outcome.error}` : '.'}`));
  writeLine(ctx.stderr, `Inspect it with: cairn run get ${runId}`);
  return EXIT_FAILURE;
}
