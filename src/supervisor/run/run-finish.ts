import { clockNow } from '../../shared/clock.js';
import type { ApprovalContext } from '../../store/schemas/approval.js';
import type { Run } from '../../store/schemas/run.js';
import type { RunBudget } from './budget.js';
import type { NodeLauncher } from './node-launcher.js';
import type { NodeEntry, NodeTable } from './node-table.js';
import type { NodeTimers } from './node-timers.js';
import type { ProviderLine } from './provider-line.js';
import type { ReadyQueue } from './ready-queue.js';
import type { RunEnd } from './run-end.js';
import { runEnding } from './run-outcome.js';
import { quotaResumeOf, type AutoResumePolicy } from './quota-resume.js';
import { evidenceError, missingEvidence, type EvidencePolicy, type MissingEvidence } from './evidence-check.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { budgetPause, gatePause, type RunPause } from './run-pause.js';
import type { RunPlan } from './run-plan.js';

/** What of its scheduler's state a run's end is decided from. */
export interface RunFinishState {
  run: Run;
  plan: RunPlan;
  table: NodeTable;
  end: RunEnd;
  budget: RunBudget;
  /** Nodes at a gate, in the order they reached it. */
  suspended: ReadonlyMap<NodeEntry, ApprovalContext>;
  ready: ReadyQueue<NodeEntry>;
  timers: NodeTimers;
  providerLine: ProviderLine | undefined;
  launcher: Pick<NodeLauncher, 'size'>;
  sleepAfterMs: number | undefined;
  autoResume: AutoResumePolicy | undefined;
  /** The workflow's `evidence_policy` for this run's artifacts; undefined: none. */
  evidence: EvidencePolicy | undefined;
  stopping(): boolean;
  /** Stopping, and every in-flight attempt has settled. */
  settled(): boolean;
  /** Ready nodes, retries and waits let go (they hold nothing). */
  letGoOfWaiting(): void;
}

/** How a run's scheduler ends its hold on the run once nothing of it runs: it ends, pauses, or sleeps. */
export class RunFinish {
  /** The run is being let go to sleep; settles once that is committed or refused. */
  private sleeping: Promise<unknown> | undefined;

  constructor(private readonly s: RunFinishState) {}

  /**
   * Ends the run once nothing of it runs any more: completed or failed when every node is
   * terminal; else paused when it waits for a person at a gate, for a child run, or for more
   * budget (an AI attempt was held back by it). A paused run holds nothing here (no scheduler,
   * no timer, no lease); a resume, or the answer's job, rebuilds it from its events.
   */
  async maybeFinish(): Promise<void> {
    if (this.s.end.reached || this.s.launcher.size || (this.s.stopping() && !this.s.settled())) return;
    if (!this.s.table.allTerminal()) {
      if (this.s.budget.reached) {
        // Ready nodes, retries and waits hold nothing and continue when the run is resumed.
        this.s.letGoOfWaiting();
        await this.paused(budgetPause(this.s.run, this.s.budget.reached));
      } else if (this.s.suspended.size && !this.s.ready.length && !this.s.timers.retrying && !this.s.timers.waiting) {
        const [entry, approval] = this.s.suspended.entries().next().value!;
        await this.paused(gatePause(this.s.run, entry.path, approval));
      } else await this.maybeSleep();
      return;
    }
    const ending = runEnding(this.s.run, this.s.plan.workflowName, this.s.table.values());
    if (ending.status === 'completed' && this.s.evidence) {
      const missing = await missingEvidence(this.s.evidence);
      if (missing.length) return this.failForEvidence(this.s.evidence, missing, ending.event);
    }
    const { status, error, event } = ending;
    const resume = status === 'failed' ? quotaResumeOf(this.s.run, this.s.autoResume, this.s.table.values()) : undefined;
    if (!resume) return this.s.end.finish(status, error, [event]);
    // Failed on usage limits only: the store queues the resume from the metadata, with the failure.
    await this.s.end.finish(status, error, [{ ...event, data: { ...event.data, auto_resume: resume.data } }], resume.metadataPatch);
  }

  /**
   * Nothing of the run can happen before its earliest `wait` wakes, and that is more than
   * `sleepAfterMs` away: the run is let go (it stays `running`, owned by nobody) with a `wake_run`
   * job due at that moment, in one transaction (RunStore.sleepRun), so a sleeping run holds no
   * timer, scheduler or lease anywhere. Whoever claims the job rebuilds the run from its events,
   * and the wait completes as the same attempt. Refused (a cancel is on the run, or it was lost),
   * or the store failing: the run goes on here with its timers.
   */
  private async maybeSleep(): Promise<void> {
    const after = this.s.sleepAfterMs;
    if (after === undefined || this.s.stopping() || this.sleeping || !this.s.timers.waiting) return;
    if (this.s.ready.length || this.s.providerLine?.length || this.s.timers.retrying || this.s.launcher.size) return;
    const wakeAt = this.s.timers.earliestWake!;
    if (wakeAt - clockNow() <= after) return;
    this.sleeping = this.s.end.sleep(wakeAt, () => this.s.timers.letGo()).finally(() => (this.sleeping = undefined));
    await this.sleeping;
  }

  /**
   * Every node ended well, but files the workflow's `evidence_policy` requires are not under
   * `$ARTIFACTS_DIR`: the run fails instead of completing, saying which (evidence-check.ts).
   */
  private failForEvidence(policy: EvidencePolicy, missing: MissingEvidence[], completed: NewRunEvent): Promise<void> {
    const error = evidenceError(this.s.plan.workflowName, missing);
    const durationMs = (completed.data as { duration_ms: number }).duration_ms;
    return this.s.end.finish('failed', error, [
      newRunLevelEvent(this.s.run, 'evidence_validation_failed', { required: [...policy.required], missing }),
      newRunLevelEvent(this.s.run, 'workflow_failed', { error, duration_ms: durationMs }),
    ]);
  }

  private paused({ event, patch }: RunPause): Promise<void> {
    return this.s.end.finish('paused', null, [event], patch);
  }
}
