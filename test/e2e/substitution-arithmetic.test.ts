import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor, type LooseEvent } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { arithmeticCases, heredocCases, nameCases, nameInArithmeticCases, withReference } from '../workflow/shell-context-cases.js';
import { nativeJob, runBashJobs } from '../workflow/run-substituted.js';

/**
 * The reproductions through a real supervisor and worker pool: a message, an upstream
 * output and an input reach `bash` nodes in every arithmetic context, every place bash reads a
 * variable name, and next to heredocs and `${…}`. A value bash would evaluate fails its node
 * before bash starts, with the reference and the line in the error; an integer (a name, where bash
 * reads a name) runs as bash reads it; nothing a value holds ever runs.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

type Kind = 'integer' | 'name' | 'integer-or-empty' | 'exact';
interface Node {
  id: string;
  body: string;
  /** The reference as written, or the variable named bare. */
  ref: string;
  line: number;
  kind: Kind;
  expected?: (v: string) => string;
}

const refs = ['$ARGUMENTS', '$m.output', '$INPUTS.n'];
const nodes: Node[] = [
  ...arithmeticCases.map((c, i) => ({ id: `arith-${i}`, body: withReference(c.body, refs[i % 3]!), ref: refs[i % 3]!, line: c.line, kind: 'integer' as const })),
  ...nameCases.map((c, i) => ({ id: `name-${i}`, body: withReference(c.body, refs[i % 3]!), ref: refs[i % 3]!, line: c.line, kind: 'name' as const })),
  ...nameInArithmeticCases.map((c, i) => ({
    id: `bare-${i}`,
    body: c.body,
    ref: /ARGUMENTS|USER_MESSAGE|INPUTS_N/.exec(c.body)![0],
    line: c.line,
    kind: 'integer-or-empty' as const,
  })),
  ...heredocCases.flatMap((c, i) =>
    c.bodies.map((body, j) => ({ id: `heredoc-${i}-${j}`, body: withReference(body, refs[j % 3]!), ref: refs[j % 3]!, line: 0, kind: 'exact' as const, expected: c.expected })),
  ),
];

const workflow = [
  'name: hostile-arithmetic',
  'description: values reach arithmetic, names and heredocs as data',
  'inputs:',
  '  n: { required: true }',
  'nodes:',
  '  - id: m',
  `    bash: ${JSON.stringify('printf \'%s\' "$ARGUMENTS"')}`,
  ...nodes.flatMap((n) => [`  - id: ${n.id}`, '    depends_on: [m]', `    bash: ${JSON.stringify(n.body)}`]),
].join('\n');

const values = [
  'a[$(touch pwned)]',
  'x[$(id > f)]',
  '$(touch pwned)',
  '`touch pwned`',
  '1+1',
  'x; id > f',
  '1\ntouch pwned',
  '"\'; touch pwned',
  'EOF)\ntouch pwned',
  '0x10',
  '010',
  '9'.repeat(40),
  '-1',
  '42',
  'target',
];

const takes: Record<Exclude<Kind, 'exact'>, (v: string) => boolean> = {
  integer: (v) => /^-?(0|[1-9][0-9]{0,17})$/.test(v),
  'integer-or-empty': (v) => v === '' || /^-?(0|[1-9][0-9]{0,17})$/.test(v),
  name: (v) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(v),
};

const event = (events: LooseEvent[], id: string) => events.find((e) => e.step_name === id && ['node_completed', 'node_failed'].includes(e.event_type));

it('fails a node whose value would be evaluated, before it runs, runs the rest exactly, and never runs a value', { timeout: 600_000 }, async () => {
  const sup = await startSupervisor(home);
  for (const value of values) {
    const run = await sup.createRun(workflow, { message: value, inputs: { n: value }, workingPath: home.home });
    await sup.waitForStatus(run.id, ['completed', 'failed']);
    const events = await sup.events(run.id);
    const label = JSON.stringify(value);
    expect(readdirSync(home.home).filter((f) => f === 'pwned' || f === 'f'), label).toEqual([]);
    const natives = runBashJobs(nodes.map((n) => nativeJob(n.body.replaceAll(n.ref, '%REF%'), value)));
    nodes.forEach((n, i) => {
      const e = event(events, n.id);
      const seen = { value: label, node: n.id, type: e?.event_type, output: e?.data.node_output as string | undefined, error: e?.data.error as string | undefined };
      if (n.kind === 'exact') {
        expect(seen).toEqual({ ...seen, type: 'node_completed', output: n.expected!(value).replace(/\n$/, '') });
      } else if (takes[n.kind](value)) {
        expect(seen).toEqual({ ...seen, type: 'node_completed', output: natives[i]!.stdout.replace(/\n$/, '') });
      } else {
        expect(seen).toEqual({ ...seen, type: 'node_failed' });
        expect(seen.error, n.id).toContain(n.ref);
        expect(seen.error, n.id).toContain(`line ${n.line}`);
      }
    });
  }
});
