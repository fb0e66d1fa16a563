import type { RunEvent } from '../../store/schemas/event.js';
import { isCommitName } from '../../codebases/worktree-diff.js';

/**
 * Which commits bound one attempt's work in the run's worktree, from the run's records: it starts
 * at the commit its record saw when it started (`attempt.checkoutStart.commit`), and ends at the
 * commit the next attempt to start after it saw, or at the worktree as it is now when none
 * started since. An attempt that ran while another attempt in the worktree ran cannot be told
 * apart from it, and is refused, naming the other.
 */

interface AttemptSpan {
  id: string;
  path: string;
  startSeq: number;
  endSeq: number | undefined;
  /** The commit its checkout was on when it started; undefined when not recorded (not git, not ended yet). */
  commit: string | undefined;
  /** Its record says it looked at a checkout (an exec or agent attempt; not a gate). */
  observed: boolean;
}

export type AttemptRange =
  | { kind: 'range'; path: string; from: string; to: string | null }
  | { kind: 'unknown' }
  | { kind: 'refused'; reason: string };

const terminal = new Set(['node_completed', 'node_failed']);

function attemptOf(data: Record<string, unknown>): { id: string; checkout: Record<string, unknown> | undefined } | undefined {
  const execution = data.execution as { attempt?: { id?: unknown; checkoutStart?: unknown } } | undefined;
  const attempt = execution?.attempt;
  if (typeof attempt?.id !== 'string') return undefined;
  const checkout = attempt.checkoutStart;
  return { id: attempt.id, checkout: typeof checkout === 'object' && checkout !== null ? (checkout as Record<string, unknown>) : undefined };
}

function spansOf(events: readonly RunEvent[]): Map<string, AttemptSpan> {
  const spans = new Map<string, AttemptSpan>();
  for (const event of events) {
    if (event.step_name === null) continue;
    if (event.event_type !== 'node_started' && !terminal.has(event.event_type)) continue;
    const attempt = attemptOf(event.data);
    if (!attempt) continue;
    let span = spans.get(attempt.id);
    if (!span) {
      span = { id: attempt.id, path: event.step_name, startSeq: event.seq, endSeq: undefined, commit: undefined, observed: false };
      spans.set(attempt.id, span);
    }
    if (terminal.has(event.event_type)) span.endSeq = event.seq;
    if (attempt.checkout) {
      span.observed = true;
      if (attempt.checkout.kind === 'git' && isCommitName(attempt.checkout.commit)) span.commit = attempt.checkout.commit;
    }
  }
  return spans;
}

const overlaps = (a: AttemptSpan, b: AttemptSpan) => a.startSeq < (b.endSeq ?? Infinity) && b.startSeq < (a.endSeq ?? Infinity);

export function attemptRange(events: readonly RunEvent[], attemptId: string): AttemptRange {
  const spans = spansOf(events);
  const target = spans.get(attemptId);
  if (!target) return { kind: 'unknown' };
  if (target.commit === undefined) {
    return {
      kind: 'refused',
      reason: target.endSeq === undefined
        ? `Attempt ${attemptId} of '${target.path}' has not ended: its starting commit is recorded when it ends; ask for the run's diff meanwhile`
        : `Attempt ${attemptId} of '${target.path}' recorded no git commit when it started (it did not run in the worktree); ask for the run's diff`,
    };
  }
  // An attempt still going may be working in the worktree: its checkout is recorded when it ends.
  const others = [...spans.values()].filter((s) => s !== target && (s.observed || s.endSeq === undefined));
  const alongside = others.find((s) => overlaps(s, target));
  if (alongside) {
    return {
      kind: 'refused',
      reason: `Attempt ${attemptId} of '${target.path}' ran alongside '${alongside.path}' in the same worktree, so their changes cannot be told apart; ask for the run's diff`,
    };
  }
  if (target.endSeq === undefined) return { kind: 'range', path: target.path, from: target.commit, to: null };
  const next = others.filter((s) => s.startSeq > target.endSeq!).sort((a, b) => a.startSeq - b.startSeq)[0];
  if (!next) return { kind: 'range', path: target.path, from: target.commit, to: null };
  if (next.commit === undefined) {
    return {
      kind: 'refused',
      reason: `The attempt after ${attemptId}, of '${next.path}', has not recorded the commit it started on yet: ask again when it ends`,
    };
  }
  return { kind: 'range', path: target.path, from: target.commit, to: next.commit };
}
