import { isPlainObject } from '../loading/unknown-keys.js';

/**
 * Reads `$node.output` and `$node.output.field` from the state of the producing node. Shared by
 * `when:` evaluation and body substitution so both see the same value and the same errors.
 */

/** What the engine knows about a node another node reads from. */
export type ProducerState =
  | {
      status: 'completed';
      /** The full output text (a bash node's stdout, trailing newline trimmed). */
      output: string;
      /** The parsed structured output, when the node produced one. */
      structured?: unknown;
      /** The node's declared `output_format` (JSON Schema), when it has one. */
      outputFormat?: Record<string, unknown>;
    }
  | { status: 'skipped' }
  | { status: 'failed'; error?: string };

export type OutputLookup = (nodeId: string) => ProducerState | undefined;

/**
 * A node's state as the engine keeps it (top level, a loop body, a fan-out instance), as a
 * reference sees it, with the node's declared `output_format`: a field it declares as optional
 * and the answer left out reads as empty, a field it does not declare is an error.
 */
export function producerOf(
  state: { status: string; output?: string | undefined; error?: string | undefined } | undefined,
  outputFormat: Record<string, unknown> | undefined,
): ProducerState | undefined {
  switch (state?.status) {
    case 'completed':
      return { status: 'completed', output: state.output ?? '', ...(outputFormat !== undefined ? { outputFormat } : {}) };
    case 'skipped':
      return { status: 'skipped' };
    case 'failed':
      return state.error === undefined ? { status: 'failed' } : { status: 'failed', error: state.error };
    default:
      return undefined;
  }
}

/** Why a reference cannot be read; the caller fails the consuming node with `message`. */
export interface ReferenceError {
  code:
    | 'producer_failed'
    | 'producer_not_run'
    | 'output_not_json_object'
    | 'field_not_declared'
    | 'field_missing'
    | 'input_undeclared'
    | 'variable_unavailable'
    /** A reference stands where no value can be made safe for the shell (see shell-body.ts). */
    | 'unsafe_reference';
  message: string;
}

/** A resolved value. `scalar` marks a JSON number or boolean, which shells receive unquoted. */
export type OutputValue = { ok: true; text: string; scalar: boolean } | { ok: false; error: ReferenceError };

/**
 * Resolves a reference to `nodeId`'s output. A skipped producer reads as empty text (a join
 * after an untaken branch sees ''); a failed one is an error, never stale or empty text.
 */
export function resolveOutput(lookup: OutputLookup, nodeId: string, field?: string): OutputValue {
  const ref = field === undefined ? `$${nodeId}.output` : `$${nodeId}.output.${field}`;
  const state = lookup(nodeId);
  if (!state) {
    return fail('producer_not_run', `${ref}: node '${nodeId}' has not run, so its output is not available`);
  }
  if (state.status === 'failed') {
    return fail('producer_failed', `${ref}: node '${nodeId}' failed${state.error ? ` (${state.error})` : ''}, so its output cannot be used`);
  }
  if (state.status === 'skipped') return { ok: true, text: '', scalar: false };
  if (field === undefined) return { ok: true, text: state.output, scalar: false };

  const declared = declaredFields(state.outputFormat);
  if (declared && !declared.all.has(field)) {
    return fail('field_not_declared', `${ref}: field '${field}' is not declared in node '${nodeId}' output_format schema`);
  }
  const object = state.structured !== undefined ? state.structured : parseJson(state.output);
  if (!isPlainObject(object)) {
    return fail('output_not_json_object', `${ref}: the output of node '${nodeId}' is not a JSON object`);
  }
  if (!(field in object) || object[field] === undefined) {
    if (declared && !declared.required.has(field)) return { ok: true, text: '', scalar: false };
    return fail('field_missing', `${ref}: the output of node '${nodeId}' has no field '${field}'`);
  }
  return render(object[field]);
}

function render(value: unknown): OutputValue {
  if (typeof value === 'string') return { ok: true, text: value, scalar: false };
  if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, text: String(value), scalar: true };
  if (value === null) return { ok: true, text: '', scalar: false };
  return { ok: true, text: JSON.stringify(value), scalar: false };
}

function declaredFields(schema: Record<string, unknown> | undefined): { all: Set<string>; required: Set<string> } | undefined {
  if (!schema || !isPlainObject(schema.properties)) return undefined;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  return { all: new Set(Object.keys(schema.properties)), required: new Set(required) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function fail(code: ReferenceError['code'], message: string): OutputValue {
  return { ok: false, error: { code, message } };
}
