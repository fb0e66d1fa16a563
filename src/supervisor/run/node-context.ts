import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Run } from '../../store/schemas/run.js';
import { ATTACHMENTS_FOLDER } from '../../store/schemas/run-attachment.js';
import { decideWhen } from '../../workflow/when/condition-evaluate.js';
import { bodyEnvironment, conditionLookup, substitutePrompt, substituteShell, type SubstitutionContext } from '../../workflow/substitution/substitute.js';
import type { UnavailableVariables, VariableValues } from '../../workflow/substitution/variables.js';
import type { RunPlaceVariables } from './run-variables.js';
import type { BodyScope } from './node-handler.js';
import type { NodeTable } from './node-table.js';
import type { PlannedNode } from './run-plan.js';
import type { SkipDecision } from './skip-decision.js';
import { makePrivateDirSync, PRIVATE_FILE_MODE } from '../../shared/private-files.js';
import { fileNameFor } from '../../shared/file-name.js';

/** Evaluates a node's `when` condition against upstream outputs: undefined means "run it", a
 * skip decision skips it, `{ fail }` fails it (a reference to a failed producer, say). */
export type CheckCondition = (node: PlannedNode, scope?: BodyScope) => SkipDecision | { fail: string } | undefined;

/** A node's text (an approval message, a wait moment) with its references filled in as plain text. */
export type SubstituteText = (node: PlannedNode, text: string) => { ok: true; text: string } | { ok: false; error: string };

export interface RunContextInput {
  run: Pick<Run, 'id' | 'user_message' | 'inputs' | 'working_path'>;
  declaredInputs: readonly string[];
  artifactsDir: string;
  /** `$BASE_BRANCH`, `$STATE_DIR`, `$DOCS_DIR` as resolved for the run (run-variables.ts). */
  placeVariables?: RunPlaceVariables;
  /** The variables the run has no value for, each with why and how to give it one. */
  unavailable?: UnavailableVariables;
  homeScripts: string;
  /** `$CAIRN_HOME`, where command files are looked up after the project's (default: resolved from the environment). */
  home?: string;
}

/**
 * The substitution context of a consumer (a node's id, or a body's path): the run's variables with
 * the body's own `extra` ones, its inputs, the upstream outputs (a loop_group body node's `scope`
 * first). Each kind turns its own text into what it runs with it (an exec body, a prompt).
 */
export type Substitution = (consumer: string, extra?: VariableValues, scope?: BodyScope) => SubstitutionContext;

export interface RunContext {
  substitution: Substitution;
  checkCondition: CheckCondition;
  substituteText: SubstituteText;
  /** The run facts the context was made from (its working path, where scripts and commands are looked up). */
  input: RunContextInput;
}

/**
 * The functions that turn definition text into something runnable: the substitution context (with the
 * run variables, inputs, upstream outputs) each kind substitutes its bodies with, text substitution for
 * approval messages, waits, fan-out items and child inputs, and `when:` evaluation for the
 * scheduler. All read upstream outputs from the run's node table, and all see the same run
 * variables: every body, prompt and message of a run (loop and loop_group bodies, `on_reject`
 * prompts included) gets `$BASE_BRANCH`, `$STATE_DIR`, `$DOCS_DIR`... alike.
 */
export function createRunContext(
  input: RunContextInput,
  table: NodeTable,
): RunContext {
  const variables: VariableValues = {
    ARGUMENTS: input.run.user_message,
    USER_MESSAGE: input.run.user_message,
    WORKFLOW_ID: input.run.id,
    ARTIFACTS_DIR: input.artifactsDir,
    ATTACHMENTS_DIR: join(input.artifactsDir, ATTACHMENTS_FOLDER),
    ...input.placeVariables,
  };
  const context = (consumer: string, extra: VariableValues = {}, scope?: BodyScope): SubstitutionContext => ({
    variables: { ...variables, ...extra },
    ...(input.unavailable ? { unavailable: input.unavailable } : {}),
    inputs: input.run.inputs,
    declaredInputs: input.declaredInputs,
    outputs: scope ? (id) => scope.outputs(id) ?? table.producer(id) : (id) => table.producer(id),
    ...(scope?.previousIteration ? { previousIteration: scope.previousIteration } : {}),
    // Values too large for a process environment reach the body through files of the run.
    spill: (value, name) => {
      const file = join(input.artifactsDir, '.cairn', 'node-values', fileNameFor(consumer), `${fileNameFor(name)}.txt`);
      makePrivateDirSync(dirname(file));
      writeFileSync(file, value, { mode: PRIVATE_FILE_MODE });
      return file;
    },
  });

  const checkCondition: CheckCondition = (node, scope) => {
    if (node.when === undefined) return undefined;
    const decision = decideWhen(node.when, conditionLookup(context(node.id, {}, scope)));
    if (decision.run) return undefined;
    if ('error' in decision) return { fail: `Node '${node.id}': when condition failed: ${decision.error}` };
    return decision.skip.reason === 'when_condition'
      ? { reason: 'when_condition', cause: { kind: 'condition', expr: decision.skip.expr } }
      : { reason: 'when_condition_parse_error', cause: { kind: 'condition_parse_error', expr: decision.skip.expr } };
  };

  const substituteText: SubstituteText = (node, text) => {
    const result = substitutePrompt(text, context(node.id));
    return result.ok ? { ok: true, text: result.text } : { ok: false, error: `Node '${node.id}': ${result.error.message}` };
  };

  return { substitution: context, checkCondition, substituteText, input };
}
