import { CairnError } from '../shared/errors.js';
import { parsePayloadPath, readPayloadPath } from './payload-paths.js';

/**
 * A delivery's run inputs: each mapped input's path read from the payload. A string is taken as
 * it is; a number or a boolean as its JSON text (`42`, `true`). A path that finds nothing, or
 * null, leaves the input out (the workflow's default then applies, and a required input without
 * one is refused); a path that finds an object or an array is refused. Refusals are 422
 * HOOK_PAYLOAD_UNFIT naming the input and its path.
 */
export function inputsFromPayload(mapping: Readonly<Record<string, string>>, payload: unknown): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [input, path] of Object.entries(mapping)) {
    const steps = parsePayloadPath(path);
    if (typeof steps === 'string') throw new CairnError('HOOK_PAYLOAD_UNFIT', `Input '${input}': ${steps}`);
    const value = readPayloadPath(payload, steps);
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') inputs[input] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') inputs[input] = JSON.stringify(value);
    else {
      throw new CairnError(
        'HOOK_PAYLOAD_UNFIT',
        `Input '${input}' maps to ${path}, which is ${Array.isArray(value) ? 'an array' : 'an object'} in the payload; map it to a string, number or boolean inside it`,
      );
    }
  }
  return inputs;
}

/** A path in a hook's mapping that cannot be read, said for the request that makes the hook; undefined when all are fine. */
export function mappingProblem(mapping: Readonly<Record<string, string>>): string | undefined {
  for (const [input, path] of Object.entries(mapping)) {
    const steps = parsePayloadPath(path);
    if (typeof steps === 'string') return `input '${input}': ${steps}`;
  }
  return undefined;
}
