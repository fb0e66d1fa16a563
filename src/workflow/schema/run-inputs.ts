import { CairnError } from '../../shared/errors.js';
import type { InputSpec } from './input-spec.js';
import { inputText, typeProblem, valueFromText, type InputType, type InputValue } from './input-types.js';

/**
 * A run's inputs as its requester gives them: `text` values (the CLI's `--input k=v`, a run
 * request's `inputs`, a schedule's, a webhook's mapped payload, a child's `with:` value with
 * references filled in) are converted by each input's declared type; `typed` values (a run
 * request's `typedInputs`, a `workflow:` node's literal `with:` values, a fan-out item) are
 * checked as they are.
 */
export interface SuppliedInputs {
  text?: Readonly<Record<string, string>> | undefined;
  typed?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Checks a run request's inputs against the workflow's declared inputs and fills in defaults,
 * before anything is written (contract run rule 1: no worktree, clone or AI cost for a request
 * that names an undeclared input, leaves out a required one, or gives a value its type refuses).
 * An empty object equals omission. Declared inputs that are neither supplied nor defaulted are
 * left out; the engine decides what `$INPUTS.<name>` means for them.
 */
export function resolveRunInputs(
  workflowName: string,
  declared: Readonly<Record<string, InputSpec>> | undefined,
  supplied: SuppliedInputs | undefined,
): Record<string, InputValue> {
  const specs = declared ?? {};
  const text = supplied?.text ?? {};
  const typed = supplied?.typed ?? {};
  const problems: string[] = [];
  const names = Object.keys(specs);

  for (const key of new Set([...Object.keys(text), ...Object.keys(typed)])) {
    if (!Object.hasOwn(specs, key)) {
      problems.push(
        names.length
          ? `Unknown input '${key}' for workflow '${workflowName}'; declared inputs: ${names.join(', ')}`
          : `Unknown input '${key}': workflow '${workflowName}' declares no inputs`,
      );
    } else if (Object.hasOwn(text, key) && Object.hasOwn(typed, key)) {
      problems.push(`Input '${key}' of workflow '${workflowName}' is given twice, as text (inputs) and as a typed value (typedInputs); give it once`);
    }
  }

  const resolved: Record<string, InputValue> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const given = givenValue(spec, text, typed, name);
    if (!given.ok) {
      problems.push(`Input '${name}' of workflow '${workflowName}': ${given.problem}`);
      continue;
    }
    const value = given.value ?? spec.default;
    if (value !== undefined) resolved[name] = value;
    else if (spec.required) problems.push(`Missing required input '${name}' for workflow '${workflowName}'`);
  }

  if (problems.length) {
    const detail = names.length ? `Declared inputs: ${names.map((n) => declaration(n, specs[n]!)).join(', ')}` : 'The workflow declares no inputs';
    throw new CairnError('INPUTS_INVALID', problems.join('; '), detail);
  }
  return resolved;
}

function givenValue(
  spec: InputSpec,
  text: Readonly<Record<string, string>>,
  typed: Readonly<Record<string, unknown>>,
  name: string,
): { ok: true; value: InputValue | undefined } | { ok: false; problem: string } {
  if (Object.hasOwn(typed, name)) {
    // Without a type an input holds text: a number, boolean, array or object given is kept as its JSON text.
    if (isUntyped(spec) && typed[name] !== null && typeof typed[name] !== 'string' && typeProblem({ type: typeOf(typed[name]) }, typed[name]) === undefined) {
      return { ok: true, value: inputText(typed[name] as InputValue) };
    }
    const problem = typeProblem(spec, typed[name]);
    return problem === undefined ? { ok: true, value: typed[name] as InputValue } : { ok: false, problem };
  }
  if (Object.hasOwn(text, name)) {
    const converted = valueFromText(spec, text[name]!);
    return converted.ok ? converted : { ok: false, problem: converted.problem };
  }
  return { ok: true, value: undefined };
}

function isUntyped(spec: InputSpec): boolean {
  return spec.type === undefined && spec.enum === undefined;
}

function typeOf(value: unknown): InputType {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'boolean' : 'number';
}

function declaration(name: string, spec: InputSpec): string {
  if (spec.enum) return `${name} (one of ${spec.enum.join(', ')})`;
  if (spec.items) return `${name} (array of ${spec.items.type})`;
  return spec.type ? `${name} (${spec.type})` : name;
}
