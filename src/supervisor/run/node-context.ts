import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Run } from '../../store/schemas/run.js';
import { decideWhen } from '../../workflow/condition-evaluate.js';
import type { ProducerState } from '../../workflow/resolve-output.js';
import { bodyEnvironment, conditionLookup, substituteShell, type SubstitutionContext } from '../../workflow/substitute.js';
import type { VariableValues } from '../../workflow/variables.js';
import type { CheckCondition, PrepareAttempt } from './run-driver.js';
import type { NodeState } from './run-state.js';
import { resolveScriptFile } from './script-files.js';

export interface RunContextInput {
  run: Pick<Run, 'id' | 'user_message' | 'inputs' | 'working_path'>;
  declaredInputs: readonly string[];
  artifactsDir: string;
  homeScripts: string;
}

/**
 * The two functions the driver calls to turn definition text into something runnable: body
 * substitution (with `$ARTIFACTS_DIR`, inputs, upstream outputs) and `when:` evaluation. Both
 * read upstream outputs from the driver's live node states.
 */
export function createRunContext(input: RunContextInput): { prepare: PrepareAttempt; checkCondition: CheckCondition } {
  const variables: VariableValues = {
    ARGUMENTS: input.run.user_message,
    USER_MESSAGE: input.run.user_message,
    WORKFLOW_ID: input.run.id,
    ARTIFACTS_DIR: input.artifactsDir,
  };
  const context = (states: ReadonlyMap<string, NodeState>, consumer: string): SubstitutionContext => ({
    variables,
    inputs: input.run.inputs,
    declaredInputs: input.declaredInputs,
    outputs: (id) => producerState(states.get(id)),
    spill: (value, ref) => {
      const file = join(input.artifactsDir, '.cairn', 'node-output-spills', consumer, `${ref.nodeId}${ref.field ? `.${ref.field}` : ''}.nodeoutput`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, value);
      return file;
    },
  });

  const prepare: PrepareAttempt = (node, states) => {
    if (node.action.type !== 'exec') return { ok: false, error: `Node '${node.id}' is not executable`, failureKind: 'config' };
    const { runtime, source } = node.action;
    const ctx = context(states, node.id);
    if (runtime !== 'sh') {
      const file = resolveScriptFile(source, runtime, { cwd: input.run.working_path, homeScripts: input.homeScripts });
      if (file) return { ok: true, script: file, env: bodyEnvironment(ctx) };
    }
    const result = substituteShell(source, ctx, runtime);
    return result.ok
      ? { ok: true, script: result.text, env: result.env }
      : { ok: false, error: `Node '${node.id}': ${result.error.message}`, failureKind: 'config' };
  };

  const checkCondition: CheckCondition = (node, states) => {
    if (node.when === undefined) return undefined;
    const decision = decideWhen(node.when, conditionLookup(context(states, node.id)));
    if (decision.run) return undefined;
    if ('error' in decision) return { fail: `Node '${node.id}': when condition failed: ${decision.error}` };
    return decision.skip.reason === 'when_condition'
      ? { reason: 'when_condition', cause: { kind: 'condition', expr: decision.skip.expr } }
      : { reason: 'when_condition_parse_error', cause: { kind: 'condition_parse_error', expr: decision.skip.expr } };
  };

  return { prepare, checkCondition };
}

function producerState(state: NodeState | undefined): ProducerState | undefined {
  switch (state?.status) {
    case 'completed':
      return { status: 'completed', output: state.output };
    case 'skipped':
      return { status: 'skipped' };
    case 'failed':
      return state.error === undefined ? { status: 'failed' } : { status: 'failed', error: state.error };
    default:
      return undefined;
  }
}
