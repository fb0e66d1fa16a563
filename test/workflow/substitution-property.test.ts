import fc from 'fast-check';
import { expect, it } from 'vitest';
import { arithmeticCases, heredocCases, nameCases, nameInArithmeticCases, withReference } from './shell-context-cases.js';
import { runBashJobs, substitute } from './run-substituted.js';

/**
 * For any value, in any context of a `bash` body: substitution either refuses it before anything
 * runs (only where bash evaluates arithmetic or reads a name, and only for a value that is not an
 * integer, or a name) or bash runs the body without ever reading the value as code. Values are
 * built from the pieces of shell syntax that have broken quoting before, and from arbitrary text.
 */

const pieces = [
  'a[', ']', '$(', ')', '`', 'touch pwned', 'id>f', ';', '\n', 'EOF', 'EOF)', "'", '"', '\\', '{', '}', '$', '${',
  '0x', '0', '1', '9', '-', '+', ' ', '\t', '<<', "<<'EOF'", '#', 'x', '[', '((', '))', '&&', '|', '*', '?', '~',
];
const valueArbitrary = fc.oneof(
  fc.array(fc.constantFrom(...pieces), { maxLength: 10 }).map((p) => p.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replaceAll('\0', '')),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.integer({ min: -1000, max: 1000 }).map(String),
);

const isInteger = (v: string) => /^-?(0|[1-9][0-9]*)$/.test(v) && BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n;
const isName = (v: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(v);

interface Context {
  body: string;
  /** Values substitution may refuse here; undefined: none. */
  takes?: (v: string) => boolean;
  /** What the body prints, where that is known for every value. */
  expected?: (v: string) => string;
}

const refs = ['$ARGUMENTS', '$m.output', '$INPUTS.n', '${USER_MESSAGE}'];
const contexts: Context[] = [
  ...arithmeticCases.map((c, i) => ({ body: withReference(c.body, refs[i % refs.length]!), takes: isInteger })),
  ...nameCases.map((c, i) => ({ body: withReference(c.body, refs[i % refs.length]!), takes: isName })),
  ...nameInArithmeticCases.map((c) => ({ body: c.body, takes: (v: string) => v === '' || isInteger(v) })),
  ...heredocCases.flatMap((c) => c.bodies.map((body, i) => ({ body: withReference(body, refs[i % refs.length]!), expected: c.expected }))),
  { body: "printf '%s|' $ARGUMENTS \"$m.output\" '$INPUTS.n' $'$USER_MESSAGE'", expected: (v) => `${v}|`.repeat(4) },
];

it('no value is ever read as code in any context, and only non-integers (non-names) are refused where bash evaluates them', () => {
  fc.assert(
    // Each run gives every context two values of its own.
    fc.property(fc.array(valueArbitrary, { minLength: 2 * contexts.length, maxLength: 2 * contexts.length }), (values) => {
      const tries = values.map((value, i) => {
        const c = contexts[i % contexts.length]!;
        return { c, value, result: substitute(c.body, value) };
      });
      const accepted = tries.filter((t) => t.result.ok);
      const runs = runBashJobs(accepted.map((t) => (t.result.ok ? { script: t.result.text, env: t.result.env } : { script: '', env: {} })));
      expect(runs.flatMap((r, i) => (r.files.length ? [{ value: accepted[i]!.value, body: accepted[i]!.c.body, files: r.files }] : []))).toEqual([]);
      for (const t of tries) {
        const wanted = t.c.takes ? t.c.takes(t.value) : true;
        expect({ body: t.c.body, value: t.value, accepted: t.result.ok }).toEqual({ body: t.c.body, value: t.value, accepted: wanted });
      }
      accepted.forEach((t, i) => {
        if (t.c.expected) expect({ body: t.c.body, value: t.value, stdout: runs[i]!.stdout }).toEqual({ body: t.c.body, value: t.value, stdout: t.c.expected(t.value) });
      });
    }),
    { numRuns: 10, seed: 24 },
  );
}, 300_000);

/** Pieces of bash syntax, to build bodies the scanner has to read as bash does (no `>`: a body must not write files itself). */
const syntax = [
  '$ARGUMENTS', '$m.output', '${ARGUMENTS}', ' ', '\n', ';', '"', "'", '\\', '$(', ')', '(', '`', '${x:-', '${x#', '${a[', ']', '}', '{ ', ' }',
  "<<'E'", '<<E', '<<-E', '\nE\n', 'E)', '\t', '[[ ', ' -gt 1 ]]', ' -eq ', ' == ', '(( ', ' ))', '$(( ', 'let ', 'declare -i n=', 'n=',
  'a[', 'a=(', 'read ', 'unset ', 'printf -v ', 'case x in x) ', ';; esac', 'f() ', '#', 'echo ', ': ', 'x', '&&', '||', '|', '$', '=', ':', '-',
];
/** A context of the shared cases, with one of the references. */
const caseBody = fc
  .tuple(fc.constantFrom(...arithmeticCases, ...nameCases, ...nameInArithmeticCases).map((c) => c.body), fc.constantFrom(...refs))
  .map(([body, ref]) => withReference(body, ref));
/** Pieces of syntax around and between known contexts: quotes, substitutions, heredocs and `${…}` open before them. */
const bodyArbitrary = fc
  .array(fc.oneof({ arbitrary: fc.constantFrom(...syntax), weight: 4 }, { arbitrary: caseBody, weight: 1 }), { minLength: 1, maxLength: 14 })
  .map((p) => p.join(''));
const runsCode = ['a[$(touch pwned)]', '$(touch pwned)', '`touch pwned`', 'x; touch pwned', 'x\nE\ntouch pwned', 'E)\ntouch pwned\n(', "x'\"; touch pwned #"];

it('for any body built from bash syntax, a value that would run as code is refused or never runs', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(bodyArbitrary, fc.constantFrom(...runsCode)), { minLength: 60, maxLength: 60 }), (pairs) => {
      const tries = pairs.map(([body, value]) => ({ body, value, result: substitute(body, value) }));
      const accepted = tries.filter((t) => t.result.ok);
      const runs = runBashJobs(accepted.map((t) => (t.result.ok ? { script: t.result.text, env: t.result.env } : { script: '', env: {} })));
      expect(runs.flatMap((r, i) => (r.files.length ? [{ body: accepted[i]!.body, value: accepted[i]!.value, files: r.files }] : []))).toEqual([]);
    }),
    { numRuns: 20, seed: 24 },
  );
}, 300_000);
