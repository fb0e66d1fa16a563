import type { EvidencePolicy } from './evidence-check.js';
import type { AutoResumePolicy } from './quota-resume.js';
import type { Logger } from '../../shared/log.js';
import type { Store } from '../../store/store.js';
import type { CheckCondition } from './node-context.js';
import type { NodeEventFactory } from './node-events.js';
import type { NodeHandlerSet } from './node-handler.js';
import type { NodeEntry } from './node-table.js';
import type { Slots } from './slots.js';
import type { GlobalLimiter } from './global-line.js';

/** What a run's scheduler (scheduler.ts) is built with. */
export interface SchedulerDeps {
  store: Store;
  /** The global limit (engine-slots.ts). */
  limiter: GlobalLimiter;
  handlers: NodeHandlerSet;
  events: NodeEventFactory;
  checkCondition: CheckCondition;
  ownerId: string;
  perRunLimit: number;
  /** The run's slots, when handlers take them too (an in-run fan-out's instances); else made from perRunLimit. */
  runSlots?: Slots;
  /** Per-provider limits shared by all runs; with `providerOf`, which provider a node calls (undefined: none). */
  providerSlots?: Slots;
  providerOf?: (node: NodeEntry['plan']) => string | undefined;
  /** The run's own logger (bound to its runId): calls do not repeat the runId. */
  log: Logger;
  /**
   * A run whose only pending work is `wait` nodes waking more than this many ms from now is let
   * go to sleep (RunStore.sleepRun) instead of keeping its timers here; undefined: never.
   */
  sleepAfterMs?: number;
  /** The workflow's `auto_resume` after a provider's usage limit (quota-resume.ts); undefined: none. */
  autoResume?: AutoResumePolicy;
  /** The workflow's `evidence_policy` (evidence-check.ts); undefined: none. */
  evidence?: EvidencePolicy;
}
