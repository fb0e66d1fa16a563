import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';
import { parseDraft } from '../../src/workflow/loading/parse-draft.js';
import { resolveRunInputs } from '../../src/workflow/schema/run-inputs.js';
import { decideWhen } from '../../src/workflow/when/condition-evaluate.js';
import { conditionLookup } from '../../src/workflow/substitution/substitute.js';
import type { WorkflowDefinitionDraft } from '../../src/workflow/schema/workflow-schema.js';

function load(inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return validateWorkflowDefinition({ name: 'w', description: 'd', inputs, nodes: [{ id: 'a', bash: 'true' }], ...extra });
}

function declared(inputs: Record<string, unknown>) {
  const result = load(inputs);
  if (!result.valid) throw new Error(result.errors.join('\n'));
  return result.workflow.inputs!;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof CairnError && err.code === 'INPUTS_INVALID') return err.message;
    throw err;
  }
  throw new Error('not refused');
}

describe('typed inputs when a workflow loads', () => {
  it('keeps a typed default as its type, and an untyped number or boolean default as its text', () => {
    const inputs = declared({
      count: { type: 'number', default: 3 },
      whole: { type: 'integer', default: 2 },
      dry: { type: 'boolean', default: false },
      tags: { type: 'array', items: { type: 'string' }, default: ['a', 'b'] },
      opts: { type: 'object', default: { depth: 2 } },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
      legacy: { default: 5 },
    });
    expect(Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.default]))).toEqual({
      count: 3, whole: 2, dry: false, tags: ['a', 'b'], opts: { depth: 2 }, mode: 'fast', legacy: '5',
    });
  });

  it('refuses a default its type refuses, naming the input, the type and the value', () => {
    const result = load({
      count: { type: 'number', default: 'three' },
      whole: { type: 'integer', default: 2.5 },
      tags: { type: 'array', items: { type: 'number' }, default: [1, 'x'] },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'medium' },
      legacy: { default: [1] },
    });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors).toEqual([
      `'inputs.count.default' does not match the input's declared type: expected a number, got the string "three"`,
      `'inputs.whole.default' does not match the input's declared type: expected an integer, got number 2.5`,
      `'inputs.tags.default' does not match the input's declared type: expected an array of number items, but item 1 is the string "x"`,
      `'inputs.mode.default' does not match the input's declared type: expected one of "fast", "slow", got the string "medium"`,
      `'inputs.legacy.default' must be text, a number or a boolean; declare a type (array, object) for other values`,
    ]);
  });

  it('names the type a misspelt one was meant to be, and refuses enum or items on the wrong type', () => {
    const result = load({
      count: { type: 'numbr' },
      flag: { type: 'bool' },
      tags: { type: 'string', items: { type: 'string' } },
      mode: { type: 'number', enum: ['a'] },
    });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors).toEqual([
      `'inputs.count.type' must be one of string, number, integer, boolean, array, object, not 'numbr' (did you mean 'number'?)`,
      `'inputs.flag.type' must be one of string, number, integer, boolean, array, object, not 'bool' (did you mean 'boolean'?)`,
      `'inputs.tags.items' describes the elements of an array, so it needs 'type: array'`,
      `'inputs.mode.enum' lists strings, so it needs 'type: string' (or no type), not 'type: number'`,
    ]);
  });
});

describe('a declared schedule’s inputs against the declared types', () => {
  it('refuses, when the workflow loads, a trigger input its type cannot read', () => {
    const result = load(
      { depth: { type: 'integer' }, full: { type: 'boolean', default: false } },
      { triggers: [{ schedule: { cron: '0 3 * * *', inputs: { depth: 2, full: 'yes' } } }] },
    );
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors).toEqual([
      `'triggers[0].schedule.inputs.full' does not fit the input's declared type: expected a boolean, got the text "yes" (write true or false)`,
    ]);
    expect(load({ depth: { type: 'integer' } }, { triggers: [{ schedule: { cron: '0 3 * * *', inputs: { depth: 2 } } }] }).valid).toBe(true);
  });
});

describe('a run request’s inputs against the declared types', () => {
  const specs = declared({
    count: { type: 'number' },
    whole: { type: 'integer' },
    dry: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string' } },
    opts: { type: 'object' },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    note: {},
  });

  it('converts text (the CLI’s --input, the API’s inputs) by the declared type', () => {
    expect(
      resolveRunInputs('w', specs, {
        text: { count: '3.5', whole: '7', dry: 'true', tags: '["a","b"]', opts: '{"depth":2}', mode: 'slow', note: '42' },
      }),
    ).toEqual({ count: 3.5, whole: 7, dry: true, tags: ['a', 'b'], opts: { depth: 2 }, mode: 'slow', note: '42' });
  });

  it('refuses text its type cannot read, naming the input, the type and the text', () => {
    expect(refusal(() => resolveRunInputs('w', specs, { text: { count: 'three', dry: 'yes', tags: 'a,b', whole: '1.5' } }))).toBe(
      `Input 'count' of workflow 'w': expected a number, got the text "three"; ` +
        `Input 'whole' of workflow 'w': expected an integer, got the text "1.5"; ` +
        `Input 'dry' of workflow 'w': expected a boolean, got the text "yes" (write true or false); ` +
        `Input 'tags' of workflow 'w': expected an array, got the text "a,b" (write a JSON array, e.g. ["a","b"])`,
    );
  });

  it('checks typed values as they are: "3" is not a number, null is refused, and one input given twice is refused', () => {
    expect(resolveRunInputs('w', specs, { typed: { count: 3, tags: ['x'], opts: { a: [1] }, note: 5 } })).toEqual({
      count: 3, tags: ['x'], opts: { a: [1] }, dry: false, note: '5',
    });
    expect(refusal(() => resolveRunInputs('w', specs, { typed: { count: '3', tags: ['x', 1], opts: { a: null } } }))).toBe(
      `Input 'count' of workflow 'w': expected a number, got the string "3"; ` +
        `Input 'tags' of workflow 'w': expected an array of string items, but item 1 is number 1; ` +
        `Input 'opts' of workflow 'w': expected an object, got an object holding null`,
    );
    expect(refusal(() => resolveRunInputs('w', specs, { text: { count: '3' }, typed: { count: 3 } }))).toBe(
      `Input 'count' of workflow 'w' is given twice, as text (inputs) and as a typed value (typedInputs); give it once`,
    );
  });
});

describe('a typed input in a when: condition', () => {
  const decide = (expr: string, inputs: Record<string, unknown>) => {
    const lookup = conditionLookup({ inputs: inputs as never, declaredInputs: Object.keys(inputs), outputs: () => ({ status: 'skipped' }) });
    const decision = decideWhen(expr, lookup);
    return decision.run;
  };

  it('compares as its type: a number numerically, a boolean as a boolean, text as text', () => {
    expect(decide('$INPUTS.count == 3.0', { count: 3 })).toBe(true);
    expect(decide('$INPUTS.count == 3.0', { count: '3' })).toBe(false);
    expect(decide('$INPUTS.count > 9', { count: 10 })).toBe(true);
    expect(decide('$INPUTS.dry == true', { dry: true })).toBe(true);
    expect(decide('$INPUTS.dry != false', { dry: false })).toBe(false);
    expect(decide(`$INPUTS.tags == '["a"]'`, { tags: ['a'] })).toBe(true);
    expect(decide('$INPUTS.tags > 1', { tags: ['a'] })).toBe(false);
  });
});

describe('typed values through an include’s with:', () => {
  const block = (() => {
    const parsed = parseDraft({
      name: 'block',
      description: 'd',
      inputs: { count: { type: 'integer', default: 1 }, tags: { type: 'array' } },
      nodes: [{ id: 'say', bash: 'echo "$INPUTS.count $INPUTS.tags"' }],
    });
    return parsed.draft as WorkflowDefinitionDraft;
  })();
  const include = (withValues: Record<string, unknown>) =>
    validateWorkflowDefinition(
      { name: 'outer', description: 'd', inputs: { n: { type: 'integer' } }, nodes: [{ id: 'inc', include: 'block', with: withValues }] },
      { resolveInclude: (name) => (name === 'block' ? block : undefined) },
    );

  it('checks a literal against the block’s type when the workflow loads, and lands a list as JSON text', () => {
    const ok = include({ count: 4, tags: ['a', 'b'] });
    if (!ok.valid) throw new Error(ok.errors.join('\n'));
    expect(ok.workflow.nodes[0]).toMatchObject({ bash: expect.stringContaining(`'["a","b"]'`) as unknown });
    const bad = include({ count: 'four', tags: 'x' });
    expect(bad.valid).toBe(false);
    expect(!bad.valid && bad.errors).toEqual([
      `Node 'inc' (include 'block'): with: 'count' does not fit the type 'block' declares: expected an integer, got the text "four"`,
      `Node 'inc' (include 'block'): with: 'tags' does not fit the type 'block' declares: expected an array, got the text "x" (write a JSON array, e.g. ["a","b"])`,
    ]);
    // A value with a reference is known only when the node runs, so it is not checked here.
    expect(include({ count: '$INPUTS.n', tags: '[]' }).valid).toBe(true);
  });
});
