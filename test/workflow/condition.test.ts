import { describe, expect, it } from 'vitest';
import { skipCauseSchema, skipReasonSchema } from '../../src/records/schemas/node-lifecycle.js';
import { decideWhen, evaluateCondition, type ConditionRefLookup } from '../../src/workflow/when/condition-evaluate.js';
import { parseCondition } from '../../src/workflow/when/condition-parse.js';

function lookupFrom(values: Record<string, string>): ConditionRefLookup {
  return (ref) => {
    const key = ref.kind === 'input' ? `INPUTS.${ref.name}` : ref.field ? `${ref.nodeId}.${ref.field}` : ref.nodeId;
    return key in values ? { ok: true, value: values[key]! } : { ok: false, error: `no value for ${key}` };
  };
}

function evaluate(expr: string, values: Record<string, string>): boolean {
  const parsed = parseCondition(expr);
  if (!parsed.ok) throw new Error(parsed.error);
  const result = evaluateCondition(parsed.condition, lookupFrom(values));
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe('parseCondition', () => {
  it('reads every reference form, with ids that contain dashes', () => {
    const parsed = parseCondition(
      "$bash-echo.output.status == 'ok' && $seed.output != 'x' || $classify.kind == 'bug' && $INPUTS.mode == 'fast'",
    );
    expect(parsed).toEqual({
      ok: true,
      condition: {
        anyOf: [
          [
            { ref: { kind: 'output', nodeId: 'bash-echo', field: 'status' }, op: '==', literal: { kind: 'string', value: 'ok' } },
            { ref: { kind: 'output', nodeId: 'seed' }, op: '!=', literal: { kind: 'string', value: 'x' } },
          ],
          [
            { ref: { kind: 'output', nodeId: 'classify', field: 'kind' }, op: '==', literal: { kind: 'string', value: 'bug' } },
            { ref: { kind: 'input', name: 'mode' }, op: '==', literal: { kind: 'string', value: 'fast' } },
          ],
        ],
      },
    });
  });

  it('reads numbers, booleans and the empty string', () => {
    const parsed = parseCondition("$a.output.n >= -2.5 && $a.output.ok == true && $b.output == ''");
    expect(parsed.ok && parsed.condition.anyOf[0]!.map((c) => c.literal)).toEqual([
      { kind: 'number', value: -2.5, text: '-2.5' },
      { kind: 'boolean', value: true },
      { kind: 'string', value: '' },
    ]);
  });

  it.each([
    ['', 'empty'],
    ["$a.output == 'x' &&", 'reference'],
    ["$a.output = 'x'", 'operator'],
    ['$a.output == "x"', 'single-quoted'],
    ["($a.output == 'x')", 'reference'],
    ["$a.output == 'x", 'unterminated'],
    ["a.output == 'x'", 'reference'],
    ["$a.output == 'x' extra", "'&&', '||'"],
  ])('rejects %j with a message about %s', (expr, fragment) => {
    const parsed = parseCondition(expr);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(fragment);
  });
});

describe('evaluateCondition', () => {
  it('compares == and != as text', () => {
    expect(evaluate("$a.output == 'ok'", { a: 'ok' })).toBe(true);
    expect(evaluate("$a.output == 'ok'", { a: 'ok ' })).toBe(false);
    expect(evaluate('$a.output.n == 3', { 'a.n': '3' })).toBe(true);
    expect(evaluate('$a.output.n == 3', { 'a.n': '3.0' })).toBe(false);
    expect(evaluate("$a.output != 'ok'", { a: 'no' })).toBe(true);
  });

  it('compares < > <= >= as numbers, false when either side is not a number', () => {
    expect(evaluate('$a.output > 9', { a: '10' })).toBe(true);
    expect(evaluate("$a.output <= '10'", { a: '10' })).toBe(true);
    expect(evaluate('$a.output < 5', { a: 'five' })).toBe(false);
    expect(evaluate('$a.output >= 0', { a: '' })).toBe(false);
  });

  it('binds && tighter than ||', () => {
    // false && false || true → true; it would be false if || bound tighter.
    expect(evaluate("$a.output == 'x' && $b.output == 'x' || $c.output == 'y'", { a: 'n', b: 'n', c: 'y' })).toBe(true);
    expect(evaluate("$a.output == 'y' || $b.output == 'y' && $c.output == 'y'", { a: 'n', b: 'y', c: 'n' })).toBe(false);
  });

  it('fails when any reference cannot be read, even one a short circuit would skip', () => {
    const parsed = parseCondition("$a.output == 'ok' || $failed.output == 'x'");
    const result = parsed.ok && evaluateCondition(parsed.condition, lookupFrom({ a: 'ok' }));
    expect(result).toEqual({ ok: false, error: 'no value for failed' });
  });
});

describe('decideWhen', () => {
  it('runs the node when the condition holds', () => {
    expect(decideWhen("$a.output == 'ok'", lookupFrom({ a: 'ok' }))).toEqual({ run: true });
  });

  it('skips with the contract reason when_condition and a typed cause', () => {
    const decision = decideWhen("$a.output == 'ok'", lookupFrom({ a: 'no' }));
    expect(decision).toEqual({
      run: false,
      skip: { reason: 'when_condition', expr: "$a.output == 'ok'", cause: { kind: 'condition', expr: "$a.output == 'ok'" } },
    });
    if (!decision.run && 'skip' in decision) {
      expect(skipReasonSchema.parse(decision.skip.reason)).toBe('when_condition');
      expect(skipCauseSchema.parse(decision.skip.cause)).toEqual(decision.skip.cause);
    }
  });

  it('skips an unparseable expression fail-closed with when_condition_parse_error', () => {
    const decision = decideWhen('$a.output === 1', lookupFrom({ a: '1' }));
    expect(decision).toEqual({
      run: false,
      skip: {
        reason: 'when_condition_parse_error',
        expr: '$a.output === 1',
        cause: { kind: 'condition_parse_error', expr: '$a.output === 1' },
      },
    });
  });

  it('fails the node when a referenced producer failed', () => {
    expect(decideWhen("$a.output == 'ok'", () => ({ ok: false, error: 'a failed' }))).toEqual({ run: false, error: 'a failed' });
  });
});
