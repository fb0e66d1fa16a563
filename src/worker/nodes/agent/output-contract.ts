import { z } from 'zod';

/**
 * A node's `output_format` checked after the attempt, for every provider: the provider's
 * structured answer when it gave one, else its text read as JSON (a fenced ```json block is
 * accepted, as models often wrap their answer in one). A violation fails the node with
 * `failureKind: output_contract`.
 */

export type ContractCheck = { ok: true; value: unknown } | { ok: false; error: string };

const schemas = new Map<string, z.ZodType>();

export function checkOutputContract(schema: Record<string, unknown>, structured: unknown, text: string): ContractCheck {
  let value = structured;
  if (value === undefined) {
    const parsed = parseJsonAnswer(text);
    if (!parsed.ok) return { ok: false, error: `output_format: the answer is not JSON (${parsed.error})` };
    value = parsed.value;
  }
  let validator: z.ZodType;
  try {
    validator = validatorFor(schema);
  } catch (err) {
    return { ok: false, error: `output_format: the schema cannot be used: ${(err as Error).message}` };
  }
  const result = validator.safeParse(value);
  if (result.success) return { ok: true, value };
  const issues = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `output_format: the answer does not match the schema: ${issues}` };
}

function validatorFor(schema: Record<string, unknown>): z.ZodType {
  const key = JSON.stringify(schema);
  let validator = schemas.get(key);
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    schemas.set(key, validator);
  }
  return validator;
}

function parseJsonAnswer(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : trimmed) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
