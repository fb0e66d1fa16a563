import { readRunLevelEventData } from '../store/schemas/run-level-events.js';
import { terminalRunStatuses, type RunStatus } from '../store/schemas/run.js';
import type { StreamPayload } from '../wire/stream-frames.js';
import { writeLine, type OutputStream } from '../terminal/context.js';
import { queuedPlace } from './node-summary.js';
import { firstLine, formatDuration, tailLines, type Style } from '../terminal/format.js';
import { FanOutCounters, type FetchFanOutCounts } from './fan-out-counter.js';
import { createAgentActivityLines, type ActivityDetail } from './agent-activity-lines.js';

export type FinalRunStatus = Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;

export interface RunOutcome {
  status: FinalRunStatus;
  error?: string | null | undefined;
  /** When the run reached it (its event's timestamp, ms since the epoch), when known. */
  at?: number;
}

export function isFinal(status: RunStatus): status is FinalRunStatus {
  return terminalRunStatuses.includes(status);
}

/** The verb column of a progress line, padded so node names line up. */
function verb(text: string): string {
  return text.padEnd(8);
}

/** The run's outcome when `frame` announces that run `runId` reached a final status. */
export function outcomeOf(frame: StreamPayload, runId: string): RunOutcome | undefined {
  if (frame.type !== 'workflow_status' || frame.runId !== runId || !isFinal(frame.status)) return undefined;
  return { status: frame.status, error: frame.error ?? frame.reason, at: frame.timestamp };
}

/**
 * Turns a run's stream frames into one human line per node event (started, done, failed,
 * skipped), plus the workflow file's parse warnings when the run starts, and its agents' work as
 * agent-activity-lines.ts renders it at `activity` detail (default `normal`); frames of other runs
 * are ignored. A node whose every tool call was refused says so on its `done` line. The final
 * status is the caller's to report.
 */
export function createRunProgress(opts: { runId: string; out: OutputStream; style: Style; fetchFanOutCounts?: FetchFanOutCounts; activity?: ActivityDetail }) {
  const { style } = opts;
  const counters = new FanOutCounters({ out: opts.out, style, ...(opts.fetchFanOutCounts ? { fetch: opts.fetchFanOutCounts } : {}) });
  // Every other line ends a counter line being rewritten on a terminal first.
  const out: OutputStream = {
    write: (chunk: string) => {
      counters.beforeLine();
      return opts.out.write(chunk);
    },
  };
  const activity = createAgentActivityLines({ out, style, detail: opts.activity ?? 'normal' });
  return {
    /** The run ended: fan-outs of child runs get their last count, then no count is being fetched. */
    async finish(): Promise<void> {
      counters.otherRunEnded();
      await counters.settled();
    },
    print(frame: StreamPayload): void {
      if (!('runId' in frame)) return;
      if (frame.runId !== opts.runId) {
        // A child run of this run (same conversation) ended: a fan-out counter may have moved.
        if (frame.type === 'workflow_status' && isFinal(frame.status)) counters.otherRunEnded();
        return;
      }
      if (counters.consume(frame)) return;
      if (activity.print(frame)) return;
      if (frame.type === 'dag_node') {
        const took = frame.duration !== undefined ? ` ${style.dim(`(${formatDuration(frame.duration)})`)}` : '';
        if (frame.status === 'running') activity.nodeStarted(frame.nodeId);
        const warning = frame.status === 'running' ? undefined : activity.nodeEnded(frame.nodeId);
        switch (frame.status) {
          case 'running':
            writeLine(out, `${style.cyan(verb('started'))} ${frame.nodeId}`);
            break;
          case 'completed':
            writeLine(out, `${style.green(verb('done'))} ${frame.nodeId}${took}${warning ? ` ${style.yellow(`⚠ ${warning}`)}` : ''}`);
            break;
          case 'failed':
            printFailure(out, style, frame, took);
            break;
          case 'skipped':
            writeLine(out, `${style.yellow(verb('skipped'))} ${frame.nodeId}${frame.reason ? style.dim(` (${frame.reason})`) : ''}`);
            break;
        }
        return;
      }
      if (frame.type === 'workflow_event') {
        if ((frame.eventType === 'provider_queued' || frame.eventType === 'global_queued') && frame.stepName) {
          writeLine(out, `${style.dim(verb('queued'))} ${frame.stepName} ${style.dim(`(${queuedPlace(frame.eventType, frame.data)})`)}`);
          return;
        }
        const parsed = readRunLevelEventData({ event_type: frame.eventType, data: frame.data }, 'workflow_parse_warnings');
        for (const warning of parsed?.warnings ?? []) writeLine(out, style.yellow(`${verb('warning')} ${warning}`));
        return;
      }
      if (frame.status === 'paused') {
        writeLine(out, style.yellow(`${verb('paused')} ${frame.reason ? `waiting: ${frame.reason}` : 'waiting'}`));
      }
    },
  };
}

type DagNodeFrame = Extract<StreamPayload, { type: 'dag_node' }>;

/** Lines of a failure's error text shown live: its first line, then the end of the rest. */
export const FAILURE_TAIL_LINES = 10;

/**
 * A failed node's line: `interrupted` (runs again later) and `cancelled` are not failures of the
 * node and say so; a real failure shows its first line and the tail of its stderr below it.
 */
function printFailure(out: OutputStream, style: Style, frame: DagNodeFrame, took: string): void {
  if (frame.interrupted) {
    writeLine(out, `${style.yellow(verb('stopped'))} ${frame.nodeId}${took} ${style.dim('(interrupted by a shutdown; it runs again when the run resumes)')}`);
    return;
  }
  if (frame.failureKind === 'cancelled') {
    writeLine(out, `${style.yellow(verb('cancelled'))} ${frame.nodeId}${took}`);
    return;
  }
  const kind = frame.failureKind && frame.failureKind !== 'exec_failed' ? style.dim(` [${frame.failureKind}]`) : '';
  const error = frame.error ?? '';
  writeLine(out, `${style.red(verb('failed'))} ${frame.nodeId}${took}${kind}${error ? `: ${firstLine(error, 200)}` : ''}`);
  const rest = error.split('\n').slice(1).join('\n');
  for (const line of tailLines(rest, FAILURE_TAIL_LINES)) writeLine(out, style.dim(`    ${line}`));
}
