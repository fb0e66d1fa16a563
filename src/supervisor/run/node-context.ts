import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Run } from '../../store/schemas/run.js';
import { ATTACHMENTS_FOLDER } from '../../store/schemas/run-attachment.js';
import { decideWhen } from '../../workflow/when/condition-evaluate.js';
import { bodyEnvironment, conditionLookup, substitutePrompt, substituteShell, type SubstitutionContext } from '../../workflow/substitution/substitute.js';
import { loadCommand } from '../../workflow/catalog/commands.js';
import { defaultLocations } from '../../workflow/catalog/locations.js';
import { resolveHome } from '../../shared/paths.js';
import type { PreparePrompt } from '../nodes/agent.js';
import type { UnavailableVariables, VariableValues } from '../../workflow/substitution/variables.js';
import type { RunPlaceVariables } from './run-variables.js';
import type { PrepareExec } from '../nodes/exec.js';
import type { BodyScope } from './node-handler.js';
import type { NodeTable } from './node-table.js';
import type { PlannedNode } from './run-plan.js';
import { resolveScriptFile } from './script-files.js';
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
 * The functions that turn definition text into something runnable: body substitution (with the
 * run variables, inputs, upstream outputs) for the exec and AI handlers, text substitution for
 * approval messages, waits, fan-out items and child inputs, and `when:` evaluation for the
 * scheduler. All read upstream outputs from the run's node table, and all see the same run
 * variables: every body, prompt and message of a run (loop and loop_group bodies, `on_reject`
 * prompts included) gets `$BASE_BRANCH`, `$STATE_DIR`, `$DOCS_DIR`... alike.
 */
export function createRunContext(
  input: RunContextInput,
  table: NodeTable,
): { prepare: PrepareExec; preparePrompt: PreparePrompt; checkCondition: CheckCondition; substituteText: SubstituteText } {
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

  const prepare: PrepareExec = (node, extra, scope) => {
    if (node.action.type !== 'exec') return { ok: false, error: `Node '${node.id}' is not executable` };
    const { runtime, source } = node.action;
    const ctx = context(node.id, extra, scope);
    if (runtime !== 'sh') {
      const file = resolveScriptFile(source, runtime, { cwd: input.run.working_path, homeScripts: input.homeScripts });
      if (file) return { ok: true, script: file, env: bodyEnvironment(ctx) };
    }
    const result = substituteShell(source, ctx, runtime);
    return result.ok
      ? { ok: true, script: result.text, env: result.env }
      : { ok: false, error: `Node '${node.id}': ${result.error.message}` };
  };

  // A command node's prompt is its command file, read at each attempt (project, home, bundled),
  // then substituted like an inline prompt: every reference becomes plain text.
  const preparePrompt: PreparePrompt = (node, extra, scope) => {
    if (node.action.type !== 'agent') return { ok: false, error: `Node '${node.id}' is not an AI node` };
    const source = node.action.source;
    let text: string;
    if (source.kind === 'inline') {
      text = source.prompt;
    } else {
      const loaded = loadCommand(defaultLocations(input.home ?? resolveHome()), input.run.working_path ?? undefined, source.name);
      if (!loaded.ok) return { ok: false, error: `Node '${node.id}': ${loaded.message}` };
      text = loaded.text;
    }
    const result = substitutePrompt(text, context(node.id, extra, scope));
    return result.ok ? { ok: true, prompt: result.text } : { ok: false, error: `Node '${node.id}': ${result.error.message}` };
  };

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

  return { prepare, preparePrompt, checkCondition, substituteText };
}
