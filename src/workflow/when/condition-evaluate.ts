import type { SkipCause, SkipReason } from '../../records/schemas/node-lifecycle.js';
import { parseCondition, type Comparison, type Condition, type ConditionRef } from './condition-parse.js';

/**
 * Evaluates a parsed `when:` condition. A text value (a node's output, an input without a type):
 * `==` and `!=` compare text; `<`, `>`, `<=`, `>=` compare numbers and are false unless both sides
 * are finite numbers. A typed input's value compares as its type: a number with a number literal
 * numerically (`3 == 3.0`), a boolean with `true`/`false` as a boolean; anything else as its text
 * (compact JSON for arrays and objects), and ordering is false for booleans, arrays and objects.
 * Every reference is resolved before any comparison, so a reference to a failed node fails the
 * decision whichever branch would have decided it.
 */

/** A reference's value: text, or a typed input's value (number, boolean, array, object). */
export type ConditionValue = string | number | boolean | readonly unknown[] | { readonly [key: string]: unknown };
export type RefValue = { ok: true; value: ConditionValue } | { ok: false; error: string };
export type ConditionRefLookup = (ref: ConditionRef) => RefValue;

export function evaluateCondition(
  condition: Condition,
  lookup: ConditionRefLookup,
): { ok: true; value: boolean } | { ok: false; error: string } {
  const values = new Map<Comparison, ConditionValue>();
  for (const comparison of condition.anyOf.flat()) {
    const resolved = lookup(comparison.ref);
    if (!resolved.ok) return resolved;
    values.set(comparison, resolved.value);
  }
  const value = condition.anyOf.some((allOf) => allOf.every((c) => compare(values.get(c)!, c)));
  return { ok: true, value };
}

function compare(actual: ConditionValue, comparison: Comparison): boolean {
  if (typeof actual === 'string') return compareText(actual, comparison);
  const { op, literal } = comparison;
  if (typeof actual === 'number' && literal.kind === 'number') return order(op, actual, literal.value);
  if (typeof actual === 'boolean' && literal.kind === 'boolean' && (op === '==' || op === '!=')) {
    return op === '==' ? actual === literal.value : actual !== literal.value;
  }
  if (typeof actual === 'number') return compareText(String(actual), comparison);
  if (op !== '==' && op !== '!=') return false;
  return compareText(JSON.stringify(actual), comparison);
}

function order(op: Comparison['op'], left: number, right: number): boolean {
  if (op === '==') return left === right;
  if (op === '!=') return left !== right;
  if (op === '<') return left < right;
  if (op === '>') return left > right;
  if (op === '<=') return left <= right;
  return left >= right;
}

function compareText(actual: string, { op, literal }: Comparison): boolean {
  const expected = literal.kind === 'string' ? literal.value : literal.kind === 'number' ? literal.text : String(literal.value);
  if (op === '==') return actual === expected;
  if (op === '!=') return actual !== expected;
  const left = toFiniteNumber(actual);
  const right = literal.kind === 'number' ? literal.value : toFiniteNumber(expected);
  if (left === undefined || right === undefined) return false;
  return order(op, left, right);
}

function toFiniteNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** What to do with a node given its `when:`, in the contract's skip vocabulary. */
export type WhenDecision =
  | { run: true }
  | { run: false; skip: { reason: Extract<SkipReason, 'when_condition' | 'when_condition_parse_error'>; expr: string; cause: SkipCause } }
  | { run: false; error: string };

/**
 * Decides a node's `when:`. False → skipped (`when_condition`); unparseable → skipped
 * (`when_condition_parse_error`, fail-closed); a reference that cannot be read (failed
 * producer, undeclared input) → the node fails with that error.
 */
export function decideWhen(expr: string, lookup: ConditionRefLookup): WhenDecision {
  const parsed = parseCondition(expr);
  if (!parsed.ok) {
    return {
      run: false,
      skip: { reason: 'when_condition_parse_error', expr, cause: { kind: 'condition_parse_error', expr } },
    };
  }
  const result = evaluateCondition(parsed.condition, lookup);
  if (!result.ok) return { run: false, error: result.error };
  if (result.value) return { run: true };
  return { run: false, skip: { reason: 'when_condition', expr, cause: { kind: 'condition', expr } } };
}
