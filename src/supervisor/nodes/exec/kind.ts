import { bodyEnvironment, substituteShell } from '../../../workflow/substitution/substitute.js';
import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { resolveScriptFile } from '../../run/script-files.js';
import type { RunServices } from '../../run/run-services.js';
import type { PlannedNode } from '../../run/run-plan.js';
import type { NodeKind } from '../node-kind.js';
import { ExecNodeHandler, type PrepareExec } from './exec.js';
import { bashAction, DEFAULT_EXEC_TIMEOUT_MS, type ExecAction } from './action.js';

export const execKind: NodeKind<ExecAction> = {
  type: 'exec',
  plan(node: WorkflowNode) {
    if ('bash' in node) return bashAction(node.bash, node.timeout ?? DEFAULT_EXEC_TIMEOUT_MS);
    if ('script' in node) {
      return {
        type: 'exec', runtime: node.runtime, legacyType: 'script', source: node.script,
        deps: node.deps ?? [], timeoutMs: node.timeout ?? DEFAULT_EXEC_TIMEOUT_MS,
      };
    }
    return undefined;
  },
  handler: ({ services }) =>
    new ExecNodeHandler({
      store: services.store,
      storeConfig: services.storeConfig,
      run: services.run,
      pool: services.pool,
      prepare: prepareExec(services),
      runEnv: services.runEnv,
      workingPath: services.workingPath,
      artifactsDir: services.artifactsDir,
      envFiles: services.envFiles,
      killGraceMs: services.killGraceMs,
      log: services.log,
    }),
};

/** Turns an exec node's body into what the worker runs: a script file (bun, uv) or the substituted body. */
function prepareExec(services: RunServices): PrepareExec {
  const { substitution, input } = services.context;
  return (node: PlannedNode<ExecAction>, extra, scope) => {
    const { runtime, source } = node.action;
    const ctx = substitution(node.id, extra, scope);
    if (runtime !== 'sh') {
      // The run's copy of a script file (null: the copy found none, the body is code); looked
      // for on disk only when the copy does not know the body.
      const held = services.files.scriptFile(source, runtime);
      const file = held === undefined ? resolveScriptFile(source, runtime, { cwd: input.run.working_path, homeScripts: input.homeScripts }) : held ?? undefined;
      if (file) return { ok: true, script: file, env: bodyEnvironment(ctx) };
    }
    const result = substituteShell(source, ctx, runtime);
    return result.ok
      ? { ok: true, script: result.text, env: result.env }
      : { ok: false, error: `Node '${node.id}': ${result.error.message}` };
  };
}
