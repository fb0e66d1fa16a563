import type { RunStatus } from '../store/schemas/run.js';

/**
 * The text of a run's one status comment on its issue or pull request (docs/github.md): the
 * workflow, the run's status, its link in the dashboard, its cost so far and, once it ended, its
 * result (or its error). A hidden marker names the run. Pure; the result is shown as written,
 * inside a code fence longer than any run of backticks in it, so it cannot close the fence.
 */

export interface StatusView {
  runId: string;
  workflow: string;
  runUrl: string;
  status: RunStatus;
  costUsd: number | undefined;
  error: string | null;
  /** The run's output once it completed ('' for none). */
  result?: string | undefined;
}

/** GitHub refuses a comment over 65,536 characters; the result is cut well below that. */
export const RESULT_MAX = 50_000;

const statusLines: Record<RunStatus, string> = {
  pending: '⏳ queued',
  running: '🏃 running',
  paused: '⏸️ paused: it waits for an answer at a gate (or for a budget) in the dashboard',
  completed: '✅ completed',
  failed: '❌ failed',
  cancelled: '🚫 cancelled',
};

export const statusMarker = (runId: string) => `<!-- cairn-run:${runId} -->`;

/** The status a status comment shows (its second line), if it is one. */
export function shownStatusOf(body: string): RunStatus | undefined {
  const line = body.split('\n')[1] ?? '';
  return (Object.entries(statusLines) as [RunStatus, string][]).find(([, text]) => line.endsWith(`: ${text}`))?.[0];
}

function fenced(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const cut = text.length > RESULT_MAX ? `${text.slice(0, RESULT_MAX)}\n[… cut: ${text.length - RESULT_MAX} more characters]` : text;
  return `${fence}text\n${cut}\n${fence}`;
}

export function statusCommentBody(view: StatusView): string {
  const lines = [
    statusMarker(view.runId),
    `**Cairn** run of \`${view.workflow}\`: ${statusLines[view.status]}`,
    '',
    `Run: [${view.runId.slice(0, 8)}](${view.runUrl}) · cost: ${view.costUsd !== undefined ? `$${view.costUsd.toFixed(4)}` : '$0'}`,
  ];
  if (view.status === 'failed' || view.status === 'cancelled') {
    if (view.error) lines.push('', 'Error:', '', fenced(view.error));
  } else if (view.status === 'completed') {
    lines.push('', view.result ? 'Result:' : 'It gave no output.');
    if (view.result) lines.push('', fenced(view.result));
  }
  return lines.join('\n');
}

/** The one reply to a commenter who may not start runs (hooks with deny_reply). */
export const denyReplyBody = (login: string) =>
  `@${login} thank you: only people with write access to this repository can start Cairn runs, so this comment started none.`;
