import { autoResumePolicyOf } from './quota-resume.js';
import { evidencePolicyOf } from './evidence-check.js';
import type { Settings } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store, StoreConfig } from '../../store/open-store.js';
import { CairnError } from '../../shared/errors.js';
import { validateStoredDefinition } from '../../workflow/checks/validate-definition.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import type { Slots } from './slots.js';
import { createRunContext } from './node-context.js';
import { NodeEventFactory } from './node-events.js';
import { NodeTable } from './node-table.js';
import { killOrphansOf, restoreRun } from './restore-run.js';
import { isWorthWaitingFor } from '../../shared/store-faults.js';
import { decideEnvGate } from '../../codebases/env-gate.js';
import { placeRun } from './run-isolation.js';
import { recordRunVariables, resolveRunVariables } from './run-variables.js';
import { compileRunPlan } from './run-plan.js';
import { isReloadDue, openRunFiles } from './run-files.js';
import { RunScheduler } from './scheduler.js';
import { optionWarningsEvent } from './option-warnings.js';
import { openRunEnv } from '../../runs/run-env.js';
import { readRunModelLayers } from '../../runs/run-model-layers.js';
import { runSlots as runSlotsOf } from './engine-slots.js';
import type { AttemptRunner, EngineKinds } from './run-services.js';
import type { GlobalLimiter } from './global-line.js';

/** Grace between SIGTERM and SIGKILL when a node's process group is stopped. */
export const KILL_GRACE_MS = 3_000;

/** Creates the scheduler of a run the supervisor has just acquired. */
export interface SchedulerFactory {
  /** A run just moved from pending to running. */
  fresh(run: Run): Promise<RunScheduler>;
  /**
   * A run taken over from a supervisor that is gone: rebuilds state from the event log. With
   * `cancelling` (the run's cancel was requested) it starts without launching anything, for the
   * caller to `cancel()`.
   */
  takeover(run: Run, previousOwner: string | null, opts?: TakeoverOptions): Promise<RunScheduler>;
  /**
   * A run just moved from failed or paused back to running: its state is rebuilt from the event
   * log as at a take-over, the last `workflow_resumed` event starting the new pass (restoreRun).
   */
  resumed(run: Run): Promise<RunScheduler>;
}

export interface TakeoverOptions {
  cancelling?: boolean;
  /**
   * Called once the run's orphaned process groups are gone (killed, or none), before anything of
   * it is launched; the run starts when the promise it returns settles. A take-over of several
   * runs at once holds every run's start until all their orphans are gone (run-registry.ts).
   */
  orphansGone?: () => Promise<void>;
}

export interface SchedulerFactoryDeps {
  store: Store;
  storeConfig: StoreConfig;
  pool: AttemptRunner;
  /** The node kinds (supervisor/nodes/node-kinds.ts): how a definition plans, what runs each node. */
  kinds: EngineKinds;
  /** The global limit (engine-slots.ts). */
  limiter: GlobalLimiter;
  /** Per-provider limits, shared by every run of the supervisor. */
  providerSlots?: Slots;
  settings: Settings;
  log: Logger;
  /** The lease of a run's worktree lock: the run lease (process/run-registry.ts); the heartbeat renews both. */
  lockLeaseMs: number;
}

/** Builds the scheduler of a run the supervisor has just acquired (so `run.owner_id` is ours). */
export function createSchedulerFactory(deps: SchedulerFactoryDeps): SchedulerFactory {
  const build = async (
    acquired: Run,
    takeover: ({ previousOwner: string | null } & TakeoverOptions) | undefined,
  ): Promise<RunScheduler> => {
    const definition = parseStoredDefinition(await deps.store.getRunDefinition(acquired.id));
    const plan = compileRunPlan(definition, deps.kinds.planning);
    // The request's config.env, opened before anything is made for the run: a value that does not
    // open (the install key changed) fails the run at its start, saying so.
    const runEnv = openRunEnv(deps.settings.installKey, acquired.id, acquired.metadata.sealed_env);
    const paths = deps.settings.paths;
    // Before the scheduler starts: a run on a codebase gets its worktree (or its lock on the checkout).
    const placed = await placeRun(acquired, definition, {
      store: deps.store, paths, leaseMs: deps.lockLeaseMs, log: deps.log,
    });
    const { workingPath, artifactsDir } = placed;
    const codebase = placed.run.codebase_id === null ? undefined : await deps.store.getCodebase(placed.run.codebase_id);
    const resolved = await resolveRunVariables(placed.run, codebase, paths);
    const run = await recordRunVariables(deps.store, placed.run, resolved.record);
    const pastEvents = takeover ? await deps.store.listRunEvents(run.id) : undefined;
    // The run's copy of its command files and scripts: made as it starts (or as a resume with
    // reload asked), read back after.
    const files = await openRunFiles(deps.store, run, definition, {
      dirs: { home: paths.home, workingPath: run.working_path, homeScripts: paths.scripts },
      runFolder: paths.runFolder(run.id),
      reload: pastEvents !== undefined && isReloadDue(pastEvents),
      log: deps.log.child({ runId: run.id }),
    });
    const gate = await decideEnvGate(codebase, workingPath, () => new Date().toISOString());
    if (gate.policy === 'block') {
      deps.log.warn(
        { runId: run.id, codebaseId: run.codebase_id, path: workingPath, files: gate.scan?.files, keys: gate.scan?.keys },
        'run.env_files_blocked',
      );
    }
    const events = new NodeEventFactory(run);
    const restored = takeover
      ? await restoreRun(run, plan, pastEvents ?? [], {
          previousOwner: takeover.previousOwner,
          killGraceMs: KILL_GRACE_MS,
          cancelling: takeover.cancelling ?? false,
          kinds: deps.kinds.restore,
        })
      : undefined;
    const table = new NodeTable(plan, restored?.nodes);
    const context = createRunContext(
      {
        run, declaredInputs: Object.keys(definition.inputs ?? {}), artifactsDir, homeScripts: paths.scripts, home: paths.home,
        placeVariables: resolved.values, unavailable: resolved.unavailable,
      },
      table,
    );
    const { checkCondition } = context;
    const log = deps.log.child({ runId: run.id });
    const models = await readRunModelLayers(run, workingPath, deps);
    if (!takeover) {
      const warned = optionWarningsEvent(run, definition, models);
      if (warned) await deps.store.appendEvents([warned]);
    }
    const runSlots = runSlotsOf(deps.settings.perRunConcurrency);
    const autoResume = autoResumePolicyOf(definition);
    const evidence = evidencePolicyOf(definition, artifactsDir);
    // Each node kind makes its handler from what the run offers; none of this names a kind.
    const { handlers, providerOf } = deps.kinds.forRun({
      store: deps.store,
      storeConfig: deps.storeConfig,
      run,
      definition,
      settings: deps.settings,
      pool: deps.pool,
      runEnv,
      workingPath,
      artifactsDir,
      envFiles: gate.policy,
      files,
      runVariables: { WORKFLOW_ID: run.id, ARTIFACTS_DIR: artifactsDir, ...resolved.values },
      models,
      context,
      events,
      limiter: deps.limiter,
      runSlots,
      killGraceMs: KILL_GRACE_MS,
      log,
    });
    const scheduler = new RunScheduler(run, plan, table, {
      providerOf,
      ...(deps.providerSlots ? { providerSlots: deps.providerSlots } : {}),
      store: deps.store,
      limiter: deps.limiter,
      handlers,
      events,
      checkCondition,
      ownerId: run.owner_id!,
      perRunLimit: deps.settings.perRunConcurrency,
      runSlots,
      sleepAfterMs: deps.settings.waitSleepAfterMs,
      ...(autoResume ? { autoResume } : {}),
      ...(evidence ? { evidence } : {}),
      log,
    });
    await takeover?.orphansGone?.();
    await scheduler.start(restored?.events, { cancelling: takeover?.cancelling ?? false });
    return scheduler;
  };
  return {
    fresh: (run) => build(run, undefined),
    resumed: (run) => build(run, { previousOwner: null }),
    // A take-over that cannot build the run (its registry then fails it, which frees what the run
    // holds, its concurrency place first) kills the orphans the dead owner left before it says so.
    takeover: (run, previousOwner, opts) =>
      build(run, { previousOwner, ...opts }).catch(async (err: unknown) => {
        if (!isWorthWaitingFor(err)) {
          await killOrphansOf(await deps.store.listRunEvents(run.id), { previousOwner, killGraceMs: KILL_GRACE_MS }).catch((killErr: unknown) =>
            deps.log.error({ err: killErr, runId: run.id }, 'run.orphan_kill_failed'),
          );
        }
        throw err;
      }),
  };
}

/**
 * The definition snapshot the API stored with the run, parsed rather than trusted: a row
 * written by another version, or edited by hand, fails the run with the reason instead of
 * failing somewhere inside the scheduler.
 */
function parseStoredDefinition(stored: unknown): WorkflowDefinition {
  const result = validateStoredDefinition(stored);
  if (!result.valid) {
    throw new CairnError('WORKFLOW_INVALID', `its stored definition is not a valid workflow: ${result.errors.join('; ')}`);
  }
  return result.workflow;
}
