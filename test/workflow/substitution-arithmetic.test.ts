import { expect, it } from 'vitest';
import {
  arithmeticCases,
  hostileValues,
  integerValues,
  nameCases,
  nameInArithmeticCases,
  referenceForms,
  withReference,
  type ArithmeticCase,
} from './shell-context-cases.js';
import { nativeJob, runBashJobs, substitute } from './run-substituted.js';

/**
 * Bash evaluates arithmetic in `[[ -gt ]]`, `(( ))`, `$(( ))`, `let`, `declare -i`, array
 * subscripts and `${v:offset:length}`, and runs any `$(…)` hidden in a subscript of the value
 * (`a[$(id)]`); a variable name given to `read`, `printf -v`, `unset`, `[[ -v ]]`... may hold such
 * a subscript. A reference there must hold a decimal integer (a plain name where bash reads a
 * name): anything else fails the node before bash starts, with a message naming the reference and
 * its line. Accepted values behave exactly as bash reads them from a variable.
 */

/** Every body with every value is refused; any that was accepted is run, to show what it did. */
function expectAllRefused(bodies: { body: string; names: string; line: number }[], values: readonly string[]) {
  const tries = bodies.flatMap((b) => values.map((value) => ({ ...b, value, result: substitute(b.body, value) })));
  const accepted = tries.filter((t) => t.result.ok);
  const runs = runBashJobs(accepted.map((t) => (t.result.ok ? { script: t.result.text, env: t.result.env } : { script: '', env: {} })));
  expect(runs.map((r, i) => ({ ran: r.files, value: accepted[i]!.value, body: accepted[i]!.body })).filter((r) => r.ran.length)).toEqual([]);
  expect(accepted.map((t) => `${JSON.stringify(t.value)} in: ${t.body}`)).toEqual([]);
  for (const t of tries) {
    if (t.result.ok) continue;
    expect(t.result.error.code).toBe('unsafe_reference');
    expect(t.result.error.message).toContain(t.names);
    expect(t.result.error.message).toContain(`line ${t.line}`);
  }
}

/** Every body with every value runs as bash runs the same body reading the value from a variable. */
function expectAsBashReadsIt(cases: { body: string; native: string }[], values: readonly string[]) {
  const tries = cases.flatMap((c) => values.map((value) => ({ ...c, value, result: substitute(c.body, value) })));
  expect(tries.filter((t) => !t.result.ok).map((t) => `${JSON.stringify(t.value)} in ${t.body}: ${t.result.ok ? '' : t.result.error.message}`)).toEqual([]);
  const runs = runBashJobs(tries.map((t) => (t.result.ok ? { script: t.result.text, env: t.result.env } : { script: '', env: {} })));
  const natives = runBashJobs(tries.map((t) => nativeJob(t.native, t.value)));
  tries.forEach((t, i) => {
    const label = `${JSON.stringify(t.value)} in: ${t.body}`;
    expect({ label, stdout: runs[i]!.stdout, status: runs[i]!.status, files: runs[i]!.files }).toEqual({
      label,
      stdout: natives[i]!.stdout,
      status: natives[i]!.status,
      files: [],
    });
  });
}

/** Each reference form with `first`, and `$ARGUMENTS` with every value. */
function accepted(c: ArithmeticCase, values: readonly string[]) {
  expectAsBashReadsIt(referenceForms.map((ref) => ({ body: withReference(c.body, ref), native: c.body })), values.slice(0, 1));
  expectAsBashReadsIt([{ body: withReference(c.body, '$ARGUMENTS'), native: c.body }], values);
}

it.each(arithmeticCases)('a reference in arithmetic ($label) fails the node before it runs unless it is a decimal integer, which bash gets as it is', (c) => {
  expectAllRefused(referenceForms.map((ref) => ({ body: withReference(c.body, ref), names: ref, line: c.line })), hostileValues);
  accepted(c, integerValues);
});

it('takes the branch the issue wrote: [[ $ARGUMENTS -gt 10 ]] with 42 prints big, with 7 small', () => {
  const body = 'if [[ $ARGUMENTS -gt 10 ]]; then echo big; else echo small; fi';
  const [big, small] = runBashJobs(['42', '7'].map((v) => {
    const result = substitute(body, v);
    if (!result.ok) throw new Error(result.error.message);
    return { script: result.text, env: result.env };
  }));
  expect([big!.stdout, small!.stdout]).toEqual(['big\n', 'small\n']);
  expectAllRefused([{ body, names: '$ARGUMENTS', line: 1 }, { body: body.replace('$ARGUMENTS', '$m.output'), names: '$m.output', line: 1 }], ['a[$(id>f)]']);
});

it.each(nameCases)('a reference read as a variable name ($label) fails the node before it runs unless it is a plain name, which bash gets as it is', (c) => {
  expectAllRefused(referenceForms.map((ref) => ({ body: withReference(c.body, ref), names: ref, line: c.line })), hostileValues);
  accepted(c, ['target', 'other', '_x1']);
});

it.each(nameInArithmeticCases)('a value Cairn puts in the environment, named bare in arithmetic ($label), fails the node before it runs unless it is an integer or empty', (c) => {
  const variable = /ARGUMENTS|USER_MESSAGE|INPUTS_N/.exec(c.body)![0];
  expectAllRefused([{ body: c.body, names: variable, line: c.line }], hostileValues.filter((v) => v !== ''));
  // Bash reads an empty variable in arithmetic as 0.
  expectAsBashReadsIt([{ body: c.body, native: c.body }], [...integerValues, '']);
});
