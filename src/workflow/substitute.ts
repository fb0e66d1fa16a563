import type { ConditionRefLookup } from './condition-evaluate.js';
import { didYouMean } from './did-you-mean.js';
import { scanReferences, type Reference } from './references.js';
import { resolveOutput, type OutputLookup, type ReferenceError } from './resolve-output.js';
import { shellQuote } from './shell-quote.js';
import {
  inputEnvName,
  userControlledVariables,
  variableNames,
  variableValue,
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
 * Shell bodies (`bash`, `until_bash`, runtime `sh`): node outputs are spliced already
 * single-quoted as one shell word (JSON numbers and booleans bare), so `x=$node.output` assigns
 * the exact text; values over 32 KiB go through a file (`"$(cat '<path>')"`) when a spill
 * function is given. `$INPUTS.name` becomes `"${INPUTS_NAME}"`. Run-context variables are left
 * for the shell to expand from the environment, which carries them all: a user's message or a
 * branch name is never parsed as shell code.
 *
 * Scripts (runtime `bun`/`uv`): node outputs are spliced raw, as upstream (JSON output is a
 * valid JS/Python expression); `$INPUTS.name` becomes a JSON string literal; variables a user
 * controls stay in the environment, the others (paths, ids) are spliced raw.
 */

export interface SubstitutionContext {
  variables: VariableValues;
  /** Run inputs with declared defaults applied. */
  inputs: Readonly<Record<string, string>>;
  /** Names declared in the workflow's `inputs:`; `$INPUTS.<other>` fails the node. */
  declaredInputs: readonly string[];
  outputs: OutputLookup;
  /** Inside a loop_group: the body nodes' previous iteration (undefined on the first). */
  previousIteration?: OutputLookup;
  /** Shell bodies only: writes a large value to a file and returns the file's path. */
  spill?: (value: string, ref: { nodeId: string; field: string | undefined }) => string;
}

export type SubstitutionResult =
  | { ok: true; text: string; env: Record<string, string> }
  | { ok: false; error: ReferenceError };

export type BodyRuntime = 'sh' | 'bun' | 'uv';

/** Above this many bytes a shell-spliced output goes through a file instead of the command line. */
export const SPILL_THRESHOLD_BYTES = 32 * 1024;

/** Substitutes a prompt: every reference becomes its plain text. */
export function substitutePrompt(text: string, ctx: SubstitutionContext): SubstitutionResult {
  const refs = scanReferences(text);
  const result = splice(text, refs, (ref) => {
    if (ref.kind === 'variable') {
      const value = variableValue(ctx.variables, ref.name);
      return value === undefined ? unavailable(ref.name) : { ok: true, text: value };
    }
    return resolveData(ref, ctx, (value) => value.text);
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
  const result = splice(text, scanReferences(text), (ref) => {
    if (ref.kind === 'variable') {
      const value = variableValue(ctx.variables, ref.name);
      if (value === undefined) return unavailable(ref.name);
      const spliceRaw = runtime !== 'sh' && !userControlledVariables.has(ref.name);
      return { ok: true, text: spliceRaw ? value : undefined };
    }
    if (ref.kind === 'input') {
      if (!isDeclared(ref.name, ctx)) return undeclaredInput(ref.name, ctx);
      if (runtime === 'sh') return { ok: true, text: `"\${${inputEnvName(ref.name)}}"` };
      return { ok: true, text: JSON.stringify(ctx.inputs[ref.name] ?? '') };
    }
    return resolveData(ref, ctx, (value) => {
      if (runtime !== 'sh' || value.scalar) return value.text;
      if (ctx.spill && Buffer.byteLength(value.text) > SPILL_THRESHOLD_BYTES) {
        return `"$(cat ${shellQuote(ctx.spill(value.text, { nodeId: ref.nodeId, field: ref.field }))})"`;
      }
      return shellQuote(value.text);
    });
  });
  if (!result.ok) return result;
  return { ok: true, text: result.text, env: bodyEnvironment(ctx) };
}

/** The environment of a shell or script body: every available variable and every declared input. */
export function bodyEnvironment(ctx: Pick<SubstitutionContext, 'variables' | 'inputs' | 'declaredInputs'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of variableNames) {
    const value = variableValue(ctx.variables, name);
    if (value !== undefined) env[name] = value;
  }
  for (const name of new Set([...ctx.declaredInputs, ...Object.keys(ctx.inputs)])) {
    env[inputEnvName(name)] = ctx.inputs[name] ?? '';
  }
  return env;
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

function resolveData(
  ref: Exclude<Reference, { kind: 'variable' }>,
  ctx: SubstitutionContext,
  render: (value: { text: string; scalar: boolean }) => string,
): Piece {
  if (ref.kind === 'input') {
    if (!isDeclared(ref.name, ctx)) return undeclaredInput(ref.name, ctx);
    return { ok: true, text: ctx.inputs[ref.name] ?? '' };
  }
  const lookup: OutputLookup =
    ref.kind === 'output' ? ctx.outputs : (id) => ctx.previousIteration?.(id) ?? { status: 'skipped' };
  const value = resolveOutput(lookup, ref.nodeId, ref.field);
  return value.ok ? { ok: true, text: render(value) } : value;
}

function isDeclared(name: string, ctx: Pick<SubstitutionContext, 'inputs' | 'declaredInputs'>): boolean {
  return ctx.declaredInputs.includes(name) || Object.hasOwn(ctx.inputs, name);
}

function undeclaredInput(name: string, ctx: Pick<SubstitutionContext, 'declaredInputs'>): Piece {
  const known = ctx.declaredInputs.length ? ` Declared inputs: ${ctx.declaredInputs.join(', ')}.` : ' The workflow declares no inputs.';
  return {
    ok: false,
    error: {
      code: 'input_undeclared',
      message: `$INPUTS.${name} is not a declared input${didYouMean(name, ctx.declaredInputs)}.${known}`,
    },
  };
}

function unavailable(name: string): Piece {
  return {
    ok: false,
    error: { code: 'variable_unavailable', message: `$${name} is referenced but has no value for this run` },
  };
}
