import type { StreamFrame } from './api-schemas.js';
import { writeLine, type OutputStream } from './context.js';
import { firstLine, formatDuration, type Style } from './format.js';

export const finalRunStatuses = ['completed', 'failed', 'cancelled'] as const;
export type FinalRunStatus = (typeof finalRunStatuses)[number];

export interface RunOutcome {
  status: FinalRunStatus;
  error?: string | null | undefined;
}

function isFinal(status: string): status is FinalRunStatus {
  return (finalRunStatuses as readonly string[]).includes(status);
}

/** The verb column of a progress line, padded so node names line up. */
function verb(text: string): string {
  return text.padEnd(8);
}

/** The run's outcome when `frame` announces that run `runId` reached a final status. */
export function outcomeOf(frame: StreamFrame, runId: string): RunOutcome | undefined {
  if (frame.type !== 'workflow_status' || frame.runId !== runId || !isFinal(frame.status)) return undefined;
  return { status: frame.status, error: frame.error ?? frame.reason };
}

/**
 * Turns a run's stream frames into one human line per node event (started, done, failed,
 * skipped); frames of other runs are ignored. The final status is the caller's to report.
 */
export function createRunProgress(opts: { runId: string; out: OutputStream; style: Style }) {
  const { out, style } = opts;
  return {
    print(frame: StreamFrame): void {
      if (!('runId' in frame) || frame.runId !== opts.runId) return;
      if (frame.type === 'dag_node') {
        const took = frame.duration != null ? ` ${style.dim(`(${formatDuration(frame.duration)})`)}` : '';
        switch (frame.status) {
          case 'running':
            writeLine(out, `${style.cyan(verb('started'))} ${frame.nodeId}`);
            break;
          case 'completed':
            writeLine(out, `${style.green(verb('done'))} ${frame.nodeId}${took}`);
            break;
          case 'failed':
            writeLine(out, `${style.red(verb('failed'))} ${frame.nodeId}${took}${frame.error ? `: ${firstLine(frame.error, 200)}` : ''}`);
            break;
          case 'skipped':
            writeLine(out, `${style.yellow(verb('skipped'))} ${frame.nodeId}${frame.reason ? style.dim(` (${frame.reason})`) : ''}`);
            break;
          default:
            writeLine(out, `${verb(frame.status)} ${frame.nodeId}`);
        }
        return;
      }
      if (frame.type === 'workflow_status' && frame.status === 'paused') {
        const approval = (frame as { approval?: { message?: string } }).approval;
        writeLine(out, style.yellow(`${verb('paused')} ${approval?.message ? `waiting for approval: ${approval.message}` : 'waiting'}`));
      }
    },
  };
}
