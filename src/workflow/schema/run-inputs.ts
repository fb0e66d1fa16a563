import { CairnError } from '../../shared/errors.js';
import type { InputSpec } from './workflow-schema.js';

/**
 * Checks a run request's `inputs` against the workflow's declared inputs and fills in defaults,
 * before anything is written (contract run rule 1: no worktree, clone or AI cost for a request
 * that names an undeclared input or leaves out a required one). An empty object equals omission.
 * Declared inputs that are neither supplied nor defaulted are left out; the engine decides what
 * `$INPUTS.<name>` means for them.
 */
export function resolveRunInputs(
  workflowName: string,
  declared: Readonly<Record<string, InputSpec>> | undefined,
  supplied: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const specs = declared ?? {};
  const given = supplied ?? {};
  const problems: string[] = [];
  const names = Object.keys(specs);

  for (const key of Object.keys(given)) {
    if (Object.hasOwn(specs, key)) continue;
    problems.push(
      names.length
        ? `Unknown input '${key}' for workflow '${workflowName}'; declared inputs: ${names.join(', ')}`
        : `Unknown input '${key}': workflow '${workflowName}' declares no inputs`,
    );
  }

  const resolved: Record<string, string> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const value = given[name] ?? spec.default;
    if (value !== undefined) resolved[name] = value;
    else if (spec.required) problems.push(`Missing required input '${name}' for workflow '${workflowName}'`);
  }

  if (problems.length) {
    const detail = names.length ? `Declared inputs: ${names.join(', ')}` : 'The workflow declares no inputs';
    throw new CairnError('INPUTS_INVALID', problems.join('; '), detail);
  }
  return resolved;
}
