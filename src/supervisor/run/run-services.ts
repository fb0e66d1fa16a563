import type { Settings } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { StoreConfig } from '../../store/store-config.js';
import type { ModelLayers } from '../../models/model-layers.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import type { AttemptResult, AttemptTaskEnvelope } from '../../worker/attempt-protocol.js';
import type { RunContext } from './node-context.js';
import type { NodeEventFactory } from './node-events.js';
import type { NodeHandlerSet } from './node-handler.js';
import type { RestoreKinds } from './restore-run.js';
import type { PlanKinds, PlannedNode } from './run-plan.js';
import type { Slots } from './slots.js';
import type { RunFiles } from './run-files.js';
import type { GlobalLimiter } from './global-line.js';

/** Runs one attempt in a worker (the Piscina pool in production); the task is the kind's own. */
export interface AttemptRunner {
  runAttempt(task: AttemptTaskEnvelope, opts: { signal: AbortSignal }): Promise<AttemptResult>;
}

/**
 * What a run offers the node kinds once its scheduler is built (scheduler-factory.ts): the run
 * placed and its variables resolved, the substitution context, the pool, the limits. Each kind
 * takes what it needs to make its handler; none of it names a kind.
 */
export interface RunServices {
  store: Store;
  storeConfig: StoreConfig;
  run: Run;
  definition: WorkflowDefinition;
  settings: Settings;
  pool: AttemptRunner;
  /** The run's own environment (its request's `config.env`, opened). */
  runEnv: Readonly<Record<string, string>>;
  workingPath: string;
  /** The run's artifacts directory: long outputs are spilled under it. */
  artifactsDir: string;
  /** The run's copy of its command files and scripts (run-files.ts): what its nodes read, not the disk. */
  files: RunFiles;
  /** The env-leak gate's decision for the run (codebases/env-gate.ts). */
  envFiles: 'load' | 'block';
  /** `$WORKFLOW_ID`, `$ARTIFACTS_DIR` and the run's place variables, as resolved for it. */
  runVariables: Readonly<Record<string, string>>;
  /** The model settings of each scope for this run (install, repository, its user, the run's own). */
  models: ModelLayers;
  context: RunContext;
  events: NodeEventFactory;
  /** The global limit. */
  limiter: GlobalLimiter;
  /** The run's own limit. */
  runSlots: Slots;
  killGraceMs: number;
  log: Logger;
}

/** A run's node kinds, bound to it: the handler of each node, and the provider whose slot a node takes. */
export interface RunKinds {
  handlers: NodeHandlerSet;
  /** The provider whose slot a node takes before it runs (per-provider limits, rates and budgets go by it). */
  providerOf(node: PlannedNode): string | undefined;
}

/**
 * The node kinds as the engine sees them (supervisor/nodes/node-kinds.ts makes them): how a
 * definition plans, how a taken-over run restores, and the kinds bound to one run.
 */
export interface EngineKinds {
  planning: PlanKinds;
  restore: RestoreKinds;
  forRun(services: RunServices): RunKinds;
}
