import { inputText, type InputValue } from '../schema/input-types.js';
import { BodyEnvironment, placeRunValues, type SpillValue } from './body-environment.js';
import type { ConditionRefLookup } from '../when/condition-evaluate.js';
import { didYouMean } from '../loading/did-you-mean.js';
import { scanReferences, type Reference } from './references.js';
import { resolveOutput, type OutputLookup, type ReferenceError } from './resolve-output.js';
import { scriptExpression, type BodyRuntime } from './script-body.js';
import { renderScriptBody } from './script-render.js';
import { renderShellBody, type ResolvedValue } from './shell-body.js';
import {
  inputEnvName,
  unavailableVariableText,
  userControlledVariables,
  variableValue,
  type UnavailableVariables,
  type VariableName,
  type VariableValues,
} from './variables.js';

/**
 * Substitutes references into a node body. One left-to-right pass: a substituted value is
 * never scanned again, so an output or a user message that happens to contain `$x.output` or
 * `$ARGUMENTS` stays literal text.
 *
 * Prompts (prompt, command file, loop prompt, approval message): every reference is spliced
 * as plain text.
 *
 * Shell bodies (`bash`, `until_bash`, runtime `sh`) and scripts (runtime `bun`/`uv`): a value
 * is never written into the code. It travels in an environment variable (or a file, when
 * large: see body-environment.ts) and the body gets a reference to it that reads exactly the
 * value where it stands (shell-body.ts, script-body.ts). Paths and ids Cairn itself chose
 * (`$ARTIFACTS_DIR`, `$WORKFLOW_ID`...) are still spliced as text into scripts.
 */

export interface SubstitutionContext {
  variables: VariableValues;
  /** Variables the run has no value for, each with why and how to give it one. */
  unavailable?: UnavailableVariables;
  /** Run inputs with declared defaults applied; a typed input's value lands in a body as inputText writes it. */
  inputs: Readonly<Record<string, InputValue>>;
  /** Names declared in the workflow's `inputs:`; `$INPUTS.<other>` fails the node. */
  declaredInputs: readonly string[];
  outputs: OutputLookup;
  /** Inside a loop_group: the body nodes' previous iteration (undefined on the first). */
  previousIteration?: OutputLookup;
  /** Shell and script bodies: writes a value too large for the environment to a file, returns its path. */
  spill?: SpillValue;
}

export type SubstitutionResult =
  | { ok: true; text: string; env: Record<string, string> }
  | { ok: false; error: ReferenceError };

/** Substitutes a prompt: every reference becomes its plain text. */
export function substitutePrompt(text: string, ctx: SubstitutionContext): SubstitutionResult {
  const refs = scanReferences(text);
  const result = splice(text, refs, (ref) => {
    if (ref.kind === 'variable') {
      const value = variableValue(ctx.variables, ref.name, ctx.unavailable);
      return value === undefined ? unavailable(ref.name, ctx) : { ok: true, text: value };
    }
    const value = resolveValue(ref, ctx, () => '');
    return value.ok ? { ok: true, text: value.value.text } : value;
  });
  if (!result.ok) return result;
  const context = variableValue(ctx.variables, 'CONTEXT') ?? '';
  const mentionsContext = refs.some(
    (r) => r.kind === 'variable' && ['CONTEXT', 'EXTERNAL_CONTEXT', 'ISSUE_CONTEXT'].includes(r.name),
  );
  // Upstream: issue/PR context a prompt does not place itself is appended, not dropped.
  const withContext = context !== '' && !mentionsContext ? `${result.text}\n\n${context}` : result.text;
  return { ok: true, text: withContext, env: {} };
}

/** Substitutes a shell (`sh`) or script (`bun`, `uv`) body and builds its environment. */
export function substituteShell(text: string, ctx: SubstitutionContext, runtime: BodyRuntime): SubstitutionResult {
  const env = placeRunValues(new BodyEnvironment(ctx.spill), ctx);
  const refs = scanReferences(text);
  const names = new Map<string, string>();
  const outputName = (ref: Reference) => {
    const key = `${ref.kind}:${text.slice(ref.start, ref.end)}`;
    if (!names.has(key)) names.set(key, `CAIRN_REF_${names.size + 1}`);
    return names.get(key)!;
  };
  if (runtime === 'sh') {
    const result = renderShellBody(text, refs, env, (ref) => resolveValue(ref, ctx, outputName), new Map(env.values));
    return result.ok ? { ok: true, text: result.text, env: env.env } : result;
  }
  const result = renderScriptBody(text, refs, runtime, (ref, as) => {
    const resolved = resolveValue(ref, ctx, outputName);
    if (!resolved.ok) return resolved;
    const { name, text: value } = resolved.value;
    // Paths and ids Cairn chose are code-safe text authors splice into strings ("$ARTIFACTS_DIR/x").
    if (ref.kind === 'variable' && !userControlledVariables.has(ref.name)) return { ok: true, splice: value };
    const parseJson = as === 'code' && (ref.kind === 'output' || ref.kind === 'loop_prev');
    return { ok: true, expression: scriptExpression(runtime, { name, text: value, parseJson }, env) };
  });
  return result.ok ? { ok: true, text: result.text, env: env.env } : result;
}

/** The environment of a script file (nothing substituted): every available variable and declared input. */
export function bodyEnvironment(
  ctx: Pick<SubstitutionContext, 'variables' | 'unavailable' | 'inputs' | 'declaredInputs' | 'spill'>,
): Record<string, string> {
  return placeRunValues(new BodyEnvironment(ctx.spill), ctx).env;
}

/** Resolves `when:` references against the same state substitution uses. */
export function conditionLookup(ctx: Pick<SubstitutionContext, 'outputs' | 'inputs' | 'declaredInputs'>): ConditionRefLookup {
  return (ref) => {
    if (ref.kind === 'input') {
      if (!isDeclared(ref.name, ctx)) {
        const error = undeclaredInput(ref.name, ctx);
        return { ok: false, error: error.ok ? '' : error.error.message };
      }
      return { ok: true, value: ctx.inputs[ref.name] ?? '' };
    }
    const value = resolveOutput(ctx.outputs, ref.nodeId, ref.field);
    return value.ok ? { ok: true, value: value.text } : { ok: false, error: value.error.message };
  };
}

type Piece = { ok: true; text: string | undefined } | { ok: false; error: ReferenceError };

function splice(text: string, refs: Reference[], replace: (ref: Reference) => Piece): SubstitutionResult {
  let out = '';
  let last = 0;
  for (const ref of refs) {
    const piece = replace(ref);
    if (!piece.ok) return piece;
    if (piece.text === undefined) continue;
    out += text.slice(last, ref.start) + piece.text;
    last = ref.end;
  }
  return { ok: true, text: out + text.slice(last), env: {} };
}

/** A reference's value and the environment variable that carries it to shells and scripts. */
function resolveValue(
  ref: Reference,
  ctx: SubstitutionContext,
  outputName: (ref: Reference) => string,
): { ok: true; value: ResolvedValue } | { ok: false; error: ReferenceError } {
  if (ref.kind === 'variable') {
    const text = variableValue(ctx.variables, ref.name, ctx.unavailable);
    return text === undefined ? unavailable(ref.name, ctx) : { ok: true, value: { name: ref.name, text } };
  }
  if (ref.kind === 'input') {
    if (!isDeclared(ref.name, ctx)) return undeclaredInput(ref.name, ctx);
    return { ok: true, value: { name: inputEnvName(ref.name), text: inputText(ctx.inputs[ref.name]) } };
  }
  const lookup: OutputLookup =
    ref.kind === 'output' ? ctx.outputs : (id) => ctx.previousIteration?.(id) ?? { status: 'skipped' };
  const value = resolveOutput(lookup, ref.nodeId, ref.field);
  return value.ok ? { ok: true, value: { name: outputName(ref), text: value.text } } : value;
}

function isDeclared(name: string, ctx: Pick<SubstitutionContext, 'inputs' | 'declaredInputs'>): boolean {
  return ctx.declaredInputs.includes(name) || Object.hasOwn(ctx.inputs, name);
}

function undeclaredInput(name: string, ctx: Pick<SubstitutionContext, 'declaredInputs'>): { ok: false; error: ReferenceError } {
  const known = ctx.declaredInputs.length ? ` Declared inputs: ${ctx.declaredInputs.join(', ')}.` : ' The workflow declares no inputs.';
  return {
    ok: false,
    error: {
      code: 'input_undeclared',
      message: `$INPUTS.${name} is not a declared input${didYouMean(name, ctx.declaredInputs)}.${known}`,
    },
  };
}

function unavailable(name: VariableName, ctx: Pick<SubstitutionContext, 'unavailable'>): { ok: false; error: ReferenceError } {
  return {
    ok: false,
    error: { code: 'variable_unavailable', message: unavailableVariableText(name, ctx.unavailable?.[name]) },
  };
}
