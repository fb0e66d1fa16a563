import { expect, it } from 'vitest';
import { heredocCases, hostileValues, integerValues, referenceForms, withReference } from './shell-context-cases.js';
import { runBashJobs, substitute } from './run-substituted.js';

/**
 * Heredocs and `${…}`: `<<'EOF'` written inside a parameter expansion is no heredoc, so the next
 * line is code and a reference there is quoted as code; a quoted heredoc gets the value exactly,
 * even when a line of the value is the delimiter, or the delimiter followed by `)` (which ends a
 * heredoc inside `$(…)` and would run the rest of the value).
 */

const values = [...hostileValues, ...integerValues, 'EOF', '\tEOF', 'a\n\tEOF\n', 'EOF`', '${HOME} $HOME \\$x `x` \\'];

it.each(heredocCases)('$label: every value arrives exactly and never runs', (c) => {
  const bodies = c.bodies.flatMap((body) => referenceForms.map((ref) => withReference(body, ref)));
  const tries = bodies.flatMap((body) => values.map((value) => ({ body, value, result: substitute(body, value) })));
  const accepted = tries.filter((t) => t.result.ok);
  const runs = runBashJobs(accepted.map((t) => (t.result.ok ? { script: t.result.text, env: t.result.env } : { script: '', env: {} })));
  expect(runs.map((r, i) => ({ ran: r.files, value: accepted[i]!.value, body: accepted[i]!.body })).filter((r) => r.ran.length)).toEqual([]);
  expect(tries.filter((t) => !t.result.ok).map((t) => `${JSON.stringify(t.value)} in ${t.body}: ${t.result.ok ? '' : t.result.error.message}`)).toEqual([]);
  accepted.forEach((t, i) => {
    const label = `${JSON.stringify(t.value)} in: ${t.body}`;
    expect({ label, stdout: runs[i]!.stdout }).toEqual({ label, stdout: c.expected(t.value) });
  });
  // Hundreds of bash runs per case: 10 s on a quiet machine, over a minute on a loaded one.
}, 240_000);

it("reproduces the issue: ': ${x:-<<'EOF'}' then 'echo got $ARGUMENTS' with 'x; id > f' prints it and writes nothing", () => {
  const result = substitute(": ${x:-<<'EOF'}\necho got $ARGUMENTS", 'x; id > f');
  if (!result.ok) throw new Error(result.error.message);
  const [run] = runBashJobs([{ script: result.text, env: result.env }]);
  expect(run).toEqual({ stdout: 'got x; id > f\n', status: 0, files: [] });
});
