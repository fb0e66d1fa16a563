import { mkdir } from 'node:fs/promises';
import type { Settings } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store, StoreConfig } from '../../store/open-store.js';
import type { WorkflowDefinition } from '../../workflow/workflow-schema.js';
import type { AttemptLimiter } from '../process/limits.js';
import { createRunContext } from './node-context.js';
import { NodeEventFactory } from './node-events.js';
import { restoreRun } from './restore-run.js';
import { RunDriver, type AttemptRunner } from './run-driver.js';
import { compileRunPlan } from './run-plan.js';
import type { DriverFactory } from '../process/supervisor.js';

/** Grace between SIGTERM and SIGKILL when a node's process group is stopped. */
export const KILL_GRACE_MS = 3_000;

export interface DriverFactoryDeps {
  store: Store;
  storeConfig: StoreConfig;
  pool: AttemptRunner;
  limiter: AttemptLimiter;
  settings: Settings;
  log: Logger;
}

/** Builds the driver of a run the supervisor has just acquired (so `run.owner_id` is ours). */
export function createDriverFactory(deps: DriverFactoryDeps): DriverFactory {
  const build = async (run: Run, takeover: { previousOwner: string | null } | undefined): Promise<RunDriver> => {
    const definition = (await deps.store.getRunDefinition(run.id)) as WorkflowDefinition;
    const plan = compileRunPlan(definition);
    const paths = deps.settings.paths;
    const workingPath = run.working_path ?? paths.scratch(run.id);
    const artifactsDir = paths.runArtifacts(run.id);
    await Promise.all([mkdir(workingPath, { recursive: true }), mkdir(artifactsDir, { recursive: true })]);
    const events = new NodeEventFactory(run);
    const { prepare, checkCondition } = createRunContext({
      run,
      declaredInputs: Object.keys(definition.inputs ?? {}),
      artifactsDir,
      homeScripts: paths.scripts,
    });
    const driver = new RunDriver(run, plan, {
      store: deps.store,
      limiter: deps.limiter,
      attempts: deps.pool,
      events,
      prepare,
      checkCondition,
      ownerId: run.owner_id!,
      storeConfig: deps.storeConfig,
      workingPath,
      perRunLimit: deps.settings.perRunConcurrency,
      killGraceMs: KILL_GRACE_MS,
      log: deps.log.child({ runId: run.id }),
    });
    const restored = takeover
      ? await restoreRun(plan, await deps.store.listRunEvents(run.id), events, {
          previousOwner: takeover.previousOwner,
          killGraceMs: KILL_GRACE_MS,
        })
      : undefined;
    await driver.start(restored);
    return driver;
  };
  return { fresh: (run) => build(run, undefined), takeover: (run, previousOwner) => build(run, { previousOwner }) };
}
