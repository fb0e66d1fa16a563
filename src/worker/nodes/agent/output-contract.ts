import { z } from 'zod';
import type { AgentOutcome } from './agent-call.js';

/**
 * A node's `output_format` checked after the attempt, for every provider: the provider's
 * structured answer when it gave one, else its text read as JSON (a fenced ```json block is
 * accepted, as models often wrap their answer in one). A violation fails the node with
 * `failureKind: output_contract`.
 */

/** `problem` is the error without its `output_format:` prefix (what a re-ask tells the model). */
export type ContractCheck = { ok: true; value: unknown } | { ok: false; error: string; problem: string };

const schemas = new Map<string, z.ZodType>();

export function checkOutputContract(schema: Record<string, unknown>, structured: unknown, text: string): ContractCheck {
  let value = structured;
  if (value === undefined) {
    const parsed = parseJsonAnswer(text);
    if (!parsed.ok) return broken(`the answer is not JSON (${parsed.error})`);
    value = parsed.value;
  }
  let validator: z.ZodType;
  try {
    validator = validatorFor(schema);
  } catch (err) {
    return broken(`the schema cannot be used: ${(err as Error).message}`);
  }
  const result = validator.safeParse(value);
  if (result.success) return { ok: true, value };
  const issues = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
  return broken(`the answer does not match the schema: ${issues}`);
}

/** Longest account of what was wrong: it quotes the answer (a key, a JSON error's excerpt), which is the model's text. */
const PROBLEM_MAX = 1_000;

function broken(problem: string): ContractCheck {
  const cut = problem.length > PROBLEM_MAX ? `${problem.slice(0, PROBLEM_MAX)}…` : problem;
  return { ok: false, error: `output_format: ${cut}`, problem: cut };
}

/**
 * A completed call's answer checked against `schema`: completed with the JSON as its output and
 * `structured`, or failed with `failureKind: output_contract` (never retried: the same question
 * would get the same kind of answer). Other outcomes pass unchanged.
 */
export function applyOutputContract(schema: Record<string, unknown>, outcome: AgentOutcome): AgentOutcome {
  if (outcome.status !== 'completed') return outcome;
  const contract = checkOutputContract(schema, outcome.end.structured, outcome.output);
  if (!contract.ok) return { ...outcome, status: 'failed', error: contract.error, failureKind: 'output_contract', retryable: false };
  return { ...outcome, output: JSON.stringify(contract.value), structured: contract.value };
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
