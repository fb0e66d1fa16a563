import { parseCondition, type Comparison } from '../when/condition-parse.js';
import { evaluateCondition, type ConditionRefLookup } from '../when/condition-evaluate.js';
import { replaceReferences } from '../substitution/references.js';
import { inputText, type InputValue } from '../schema/input-types.js';
import { variableValue, type VariableValues } from '../substitution/variables.js';

/**
 * The values a dry run has in place of a real run's: the inputs and message as given, a stub for
 * every output a node would produce, and a marked placeholder for each variable only a real run
 * has (its id, its folders). Texts are filled with the same reference scanner a run substitutes
 * with (references.ts), so what is filled here is what a run would fill.
 */

/** What a later node reads of a node a dry run walked. */
export type StubProducer =
  /** It would run: its output is a stub (`<dry-run output of ID>`). */
  | { state: 'stub'; output: string }
  /** Its output is known without running it (a wait's empty output). */
  | { state: 'known'; output: string }
  /** Skipped: reads as '' as in a run. */
  | { state: 'skipped' }
  /** It may or may not run: its output is a stub, and a condition on it depends on the run. */
  | { state: 'maybe'; output: string }
  | { state: 'failed'; error: string };

export type StubLookup = (id: string) => StubProducer | undefined;

export const stubOutputOf = (id: string): string => `<dry-run output of ${id}>`;

/** Variables only a real run has a value for: shown as a marked placeholder. */
const runOnlyVariables = ['WORKFLOW_ID', 'ARTIFACTS_DIR', 'ATTACHMENTS_DIR', 'STATE_DIR', 'BASE_BRANCH', 'LOOP_PREV_OUTPUT', 'LOOP_USER_INPUT', 'REJECTION_REASON'] as const;

export interface StubScope {
  variables: VariableValues;
  inputs: Readonly<Record<string, InputValue>>;
  lookup: StubLookup;
}

/** The variables of a dry run: the message, what the request set (`$BASE_BRANCH`, `$DOCS_DIR`), placeholders for the rest. */
export function dryRunVariables(message: string, known: VariableValues): VariableValues {
  const values: VariableValues = { ARGUMENTS: message, USER_MESSAGE: message };
  for (const name of runOnlyVariables) values[name] = `<dry-run ${name}>`;
  return { ...values, ...known };
}

export type FilledText = { ok: true; text: string; stubbed: string[] } | { ok: false; error: string };

/**
 * A node's text with every reference filled as plain text, for reading: a real run passes values
 * to shells and scripts through their environment, never as code, and the trace says so.
 * An output reference to a walked node reads its stub (`<dry-run output of ID>` or
 * `<dry-run output of ID.field>`), to a skipped one '' (as in a run).
 */
export function fillText(text: string, scope: StubScope): FilledText {
  const stubbed = new Set<string>();
  let error: string | undefined;
  const filled = replaceReferences(text, (ref) => {
    if (ref.kind === 'variable') return variableValue(scope.variables, ref.name) ?? `<dry-run ${ref.name}>`;
    if (ref.kind === 'input') {
      if (!Object.hasOwn(scope.inputs, ref.name)) error ??= `$INPUTS.${ref.name} is not a declared input`;
      return inputText(scope.inputs[ref.name]);
    }
    if (ref.kind === 'loop_prev') return `<dry-run previous iteration of ${ref.nodeId}>`;
    const producer = scope.lookup(ref.nodeId);
    if (!producer) {
      error ??= `$${ref.nodeId}.output: node '${ref.nodeId}' has not run, so its output is not available`;
      return undefined;
    }
    if (producer.state === 'failed') {
      error ??= `$${ref.nodeId}.output: node '${ref.nodeId}' would fail (${producer.error}), so its output cannot be used`;
      return undefined;
    }
    if (producer.state === 'skipped') return '';
    if (producer.state === 'known') return producer.output;
    stubbed.add(ref.nodeId);
    return ref.field === undefined ? producer.output : stubOutputOf(`${ref.nodeId}.${ref.field}`);
  });
  return error !== undefined ? { ok: false, error } : { ok: true, text: filled, stubbed: [...stubbed] };
}

/** A `when:` as a dry run can decide it: true, false, unknown (naming the runtime values), or an error. */
export type StubWhen =
  | { value: true }
  | { value: false }
  | { value: 'unknown'; runtime: string[] }
  | { value: 'parse_error' }
  | { value: 'error'; error: string };

/**
 * Decides a `when:` on the values a dry run knows. Each comparison is true, false or unknown (it
 * reads a stub output); the condition is an OR of ANDs of them in three-valued logic, so
 * `$INPUTS.mode == 'fast' || $review.output == 'ok'` is true when the input decides it.
 */
export function decideStubWhen(expr: string, scope: StubScope): StubWhen {
  const parsed = parseCondition(expr);
  if (!parsed.ok) return { value: 'parse_error' };
  const runtime = new Set<string>();
  let failure: string | undefined;
  const lookup: ConditionRefLookup = (ref) => {
    if (ref.kind === 'input') {
      if (!Object.hasOwn(scope.inputs, ref.name)) return { ok: false, error: `$INPUTS.${ref.name} is not a declared input` };
      return { ok: true, value: scope.inputs[ref.name]! };
    }
    const producer = scope.lookup(ref.nodeId);
    if (!producer) return { ok: false, error: `$${ref.nodeId}.output: node '${ref.nodeId}' has not run` };
    if (producer.state === 'failed') return { ok: false, error: `$${ref.nodeId}.output: node '${ref.nodeId}' would fail` };
    if (producer.state === 'skipped') return { ok: true, value: '' };
    if (producer.state === 'known') return { ok: true, value: producer.output };
    return { ok: false, error: 'runtime' };
  };
  const truth = (comparison: Comparison): boolean | 'unknown' => {
    const result = evaluateCondition({ anyOf: [[comparison]] }, lookup);
    if (result.ok) return result.value;
    if (result.error !== 'runtime') {
      failure ??= result.error;
      return false;
    }
    const ref = comparison.ref;
    runtime.add(ref.kind === 'output' ? `$${ref.nodeId}.output${ref.field !== undefined ? `.${ref.field}` : ''}` : `$INPUTS.${ref.name}`);
    return 'unknown';
  };
  const groups = parsed.condition.anyOf.map((all) => {
    const values = all.map(truth);
    return values.includes(false) ? false : values.includes('unknown') ? 'unknown' : true;
  });
  if (failure !== undefined) return { value: 'error', error: failure };
  if (groups.includes(true)) return { value: true };
  if (groups.includes('unknown')) return { value: 'unknown', runtime: [...runtime] };
  return { value: false };
}
