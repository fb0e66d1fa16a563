import { didYouMean } from './did-you-mean.js';
import { includeVariableName, scriptValue, shellAssignment, shellReference, usesVariable } from './include-literal.js';
import type { IncludeNode, WorkflowNode } from '../schema/node-schema.js';
import { mapNodeTexts } from '../schema/node-texts.js';
import { scanReferences, type Reference } from '../substitution/references.js';
import { shellContextsAt } from '../substitution/shell-context.js';
import type { WorkflowDefinitionDraft } from '../schema/workflow-schema.js';
import type { InputSpec } from '../schema/input-spec.js';
import { inputText, typeProblem, valueFromText } from '../schema/input-types.js';
import type { WithValue } from '../schema/node-blocks.js';

/**
 * The inputs of an `include:` (the upstream's `$INPUTS.<name>` macro). A block declares what it
 * needs in its own `inputs:`; the include node gives values in `with:`. At load time each
 * `$INPUTS.<name>` of the block's nodes is replaced by its value (a declared `default` when
 * `with:` leaves it out), so no `$INPUTS.` of the block reaches the run, where it would name the
 * including workflow's inputs.
 *
 * A value is text, and may itself hold references (`$INPUTS.version` of the including workflow,
 * `$ARGUMENTS`, `$build.output`): those stay references and are substituted when the node runs.
 * Where the value lands decides how it is written:
 *   prompts and other text fields   as written (a macro)
 *   `bash` bodies                   assigned to a shell variable on the body's first line, and a
 *                                   reference to it where `$INPUTS.<name>` stood (include-literal.ts);
 *                                   its references are substituted when the node runs, through the
 *                                   environment, as in any body
 *   inline scripts                  its fixed text as a string literal, joined with `+`
 *   `when:`                         only a value that is one reference (`$x.output`, `$INPUTS.y`)
 */

export type IncludeInputs = { ok: true; values: ReadonlyMap<string, string>; passthrough: boolean } | { ok: false; errors: string[] };

/**
 * The value of each input the block declares, or the errors (a required input missing, an unknown
 * `with:` key). A block that declares no `inputs:` at all is a passthrough, as in the upstream:
 * it takes every `with:` value it is given, and a `$INPUTS.<name>` it is not given stays a
 * reference to the including workflow's input of that name.
 */
export function bindIncludeInputs(include: IncludeNode, block: WorkflowDefinitionDraft): IncludeInputs {
  if (block.inputs === undefined) {
    const given = Object.entries(include.with ?? {}).map(([name, value]): [string, string] => [name, inputText(value)]);
    return { ok: true, values: new Map(given), passthrough: true };
  }
  const declared = block.inputs;
  const names = Object.keys(declared);
  const given = include.with ?? {};
  const errors: string[] = [];
  const where = `Node '${include.id}' (include '${include.include}')`;
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(declared, key)) {
      const known = names.length ? ` It declares: ${names.join(', ')}.` : ' It declares no inputs.';
      errors.push(`${where}: with: '${key}' is not an input of '${block.name}'${didYouMean(key, names)}.${known}`);
    }
  }
  const values = new Map<string, string>();
  for (const [name, spec] of Object.entries(declared)) {
    const value = Object.hasOwn(given, name) ? given[name] : spec.default;
    if (value === undefined && spec.required) {
      errors.push(`${where}: missing required input '${name}' (give it under with:)`);
      continue;
    }
    const problem = Object.hasOwn(given, name) ? withValueProblem(spec, given[name]!) : undefined;
    if (problem) errors.push(`${where}: with: '${name}' does not fit the type '${block.name}' declares: ${problem}`);
    values.set(name, inputText(value));
  }
  return errors.length ? { ok: false, errors } : { ok: true, values, passthrough: false };
}

/**
 * Why a `with:` value does not fit its input's declared type, checked when the workflow loads: a
 * literal as it is, a text without references as text is converted for a run. A value holding
 * references (`$INPUTS.tag`, `$build.output`) is known only when the node runs, and is not checked.
 */
function withValueProblem(spec: InputSpec, value: WithValue): string | undefined {
  if (spec.type === undefined && spec.enum === undefined) return undefined;
  if (typeof value !== 'string') return typeProblem(spec, value);
  if (scanReferences(value).length > 0) return undefined;
  const converted = valueFromText(spec, value);
  return converted.ok ? undefined : converted.problem;
}

/** A copy of a block node with each `$INPUTS.<name>` replaced by its bound value (a passthrough block's unbound ones left as they are). */
export function substituteIncludeInputs(
  node: WorkflowNode,
  inputs: { values: ReadonlyMap<string, string>; passthrough: boolean },
  where: string,
): { ok: true; node: WorkflowNode } | { ok: false; errors: string[] } {
  const { values } = inputs;
  const errors: string[] = [];
  const value = (ref: Reference & { kind: 'input' }): string | undefined => {
    const found = values.get(ref.name);
    // A passthrough block's reference it was not given stays as written: the including workflow's input.
    if (found === undefined && !inputs.passthrough) {
      const declared = [...values.keys()];
      errors.push(
        `${where}: node '${node.id}' uses $INPUTS.${ref.name}, which the included workflow does not declare${didYouMean(ref.name, declared)}` +
          (declared.length ? ` (it declares: ${declared.join(', ')})` : ' (it declares no inputs)'),
      );
    }
    return found;
  };
  const out = mapNodeTexts(node, (text, { field }) => {
    const refs = scanReferences(text).filter((r): r is Reference & { kind: 'input' } => r.kind === 'input');
    if (refs.length === 0) return text;
    if (field === 'when') return inCondition(text, refs, value, (e) => errors.push(`${where}: node '${node.id}' when: ${e}`));
    if (field.endsWith('bash')) {
      return inShell(text, refs, value, (ref, e) => errors.push(`${where}: node '${node.id}' ${field}: $INPUTS.${ref.name} cannot be placed: ${e}`));
    }
    if (field === 'script' && 'runtime' in node) {
      return splice(text, refs, (ref) => {
        const bound = value(ref);
        return bound === undefined ? undefined : scriptValue(bound);
      });
    }
    return splice(text, refs, value);
  });
  return errors.length ? { ok: false, errors } : { ok: true, node: out };
}

function splice(text: string, refs: readonly Reference[], replace: (ref: Reference & { kind: 'input' }) => string | undefined): string {
  let out = '';
  let last = 0;
  for (const ref of refs as (Reference & { kind: 'input' })[]) {
    const piece = replace(ref);
    if (piece === undefined) continue;
    out += text.slice(last, ref.start) + piece;
    last = ref.end;
  }
  return out + text.slice(last);
}

function inShell(
  text: string,
  refs: readonly (Reference & { kind: 'input' })[],
  value: (ref: Reference & { kind: 'input' }) => string | undefined,
  fail: (ref: Reference & { kind: 'input' }, error: string) => void,
): string {
  const contexts = shellContextsAt(text, refs.map((r) => r.start));
  const contextOf = new Map(refs.map((ref, i) => [ref, contexts[i]!]));
  const assignments = new Map<string, string>();
  const body = splice(text, refs, (ref) => {
    const context = contextOf.get(ref)!;
    if (context.kind === 'comment' || context.kind === 'escaped') return undefined;
    const bound = value(ref);
    if (bound === undefined) return undefined;
    const name = includeVariableName(ref.name);
    if (usesVariable(context) && !assignments.has(name)) {
      const assignment = shellAssignment(name, bound);
      if (!assignment.ok) return (fail(ref, assignment.error), undefined);
      assignments.set(name, assignment.text!);
    }
    const placed = shellReference(context, name, bound);
    if (!placed.ok) return (fail(ref, placed.error), undefined);
    return placed.text;
  });
  return [...assignments.values()].join('') + body;
}

function inCondition(
  text: string,
  refs: readonly (Reference & { kind: 'input' })[],
  value: (ref: Reference & { kind: 'input' }) => string | undefined,
  fail: (error: string) => void,
): string {
  return splice(text, refs, (ref) => {
    const bound = value(ref);
    if (bound === undefined) return undefined;
    const inner = scanReferences(bound);
    const single = inner.length === 1 && inner[0]!.start === 0 && inner[0]!.end === bound.length;
    if (single && (inner[0]!.kind === 'output' || inner[0]!.kind === 'input')) return bound;
    fail(
      `$INPUTS.${ref.name} is compared in a condition, so its with: value must be one reference ($node.output, ` +
        `$node.output.field or $INPUTS.name), not fixed text; compare the fixed value in the including workflow instead`,
    );
    return undefined;
  });
}
