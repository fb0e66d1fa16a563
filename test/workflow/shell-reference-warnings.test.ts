import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkShellReferences } from '../../src/workflow/checks/check-shell-references.js';
import { parseDraft } from '../../src/workflow/loading/parse-draft.js';
import { substituteShell, type SubstitutionContext } from '../../src/workflow/substitution/substitute.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';
import { makeTempProject, type TempProject } from './temp-project.js';

/**
 * `validate` warns about references in shell bodies that stand where substitution checks the
 * value (arithmetic, a variable name, a run variable named bare in arithmetic, a quoted heredoc it
 * cannot rewrite) or does not substitute at all (a comment, after a backslash). The workflow stays
 * valid; each warning names the node, the reference as written and its line in the script.
 */

const workflow = (nodes: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'w', description: 'd', ...extra, nodes });
const count = { id: 'count', bash: 'echo 3' };

function warningsOf(nodes: unknown[], extra: Record<string, unknown> = {}): string[] {
  const result = validateWorkflowDefinition(workflow(nodes, extra));
  expect(result, JSON.stringify(result.valid ? [] : result.errors)).toMatchObject({ valid: true });
  return result.warnings;
}

const on = (line: number) => `on line ${line} of the script`;
const integer = 'a decimal integer (digits, an optional leading -, no leading 0, within 64 bits)';
const hint = (written: string) => `Check the value first, e.g. n=${written}; [[ $n =~ ^-?[0-9]+$ ]] || exit 1, then use $n there.`;
const arith = (written: string, where: string, line = 1) =>
  `'${written}' ${on(line)} is in ${where}, where bash evaluates it as arithmetic: its value must be ${integer}, ` +
  `or the node fails before it runs (arithmetic runs commands hidden in a value). ${hint(written)}`;
const name = (written: string, where: string, line = 1) =>
  `'${written}' ${on(line)} is where bash reads a variable name (${where}): its value must be a plain name (letters, digits ` +
  'and _, not starting with a digit), or the node fails before it runs (a subscript in a name is arithmetic, which runs commands hidden in a value).';
const bareName = (variable: string, where: string, line = 1) =>
  `'${variable}' ${on(line)} is read as a variable in ${where}: bash evaluates its value as arithmetic, so it must be ${integer} ` +
  `or empty, or the node fails before it runs. ${hint(`$${variable}`)}`;
const comment = (written: string, line = 1) => `'${written}' ${on(line)} is in a comment, so it is not substituted.`;
const escaped = (written: string, line = 1) =>
  `'${written}' ${on(line)} follows a backslash, so it is not substituted: the shell gets the text after the backslash as written.`;

describe('shell reference warnings', () => {
  it('warns, without failing validation, for each arithmetic context, a variable name, a comment and an escaped reference, naming the line', () => {
    const warnings = warningsOf([
      count,
      { id: 'math', depends_on: ['count'], bash: 'echo $(( $count.output + 1 ))\n(( $count.output > 2 )) && echo big' },
      { id: 'test', depends_on: ['count'], bash: 'echo start\nif [[ $count.output -gt 10 ]]; then echo big; fi' },
      { id: 'ints', depends_on: ['count'], bash: 'let n=$count.output\ndeclare -i m="$count.output"\na[$count.output]=1; echo "${s:$count.output}"' },
      { id: 'names', depends_on: ['count'], bash: 'read $count.output <<< x\nunset "a[$count.output]"' },
      { id: 'note', depends_on: ['count'], bash: 'echo ok # was $count.output' },
      { id: 'esc', depends_on: ['count'], bash: 'echo "\\$count.output" \\$INPUTS.topic' },
    ], { inputs: { topic: {} } });
    expect(warnings).toEqual([
      `Node 'math': ${arith('$count.output', '$((…))')}`,
      `Node 'math': ${arith('$count.output', '((…))', 2)}`,
      `Node 'test': ${arith('$count.output', '[[ … -gt … ]]', 2)}`,
      `Node 'ints': ${arith('$count.output', 'a let argument')}`,
      `Node 'ints': ${arith('$count.output', 'declare -i', 2)}`,
      `Node 'ints': ${arith('$count.output', 'an array subscript', 3)}`,
      `Node 'ints': ${arith('$count.output', '${v:offset:length}', 3)}`,
      `Node 'names': ${name('$count.output', 'read')}`,
      `Node 'names': ${arith('$count.output', 'an array subscript', 2)}`,
      `Node 'note': ${comment('$count.output')}`,
      `Node 'esc': ${escaped('$count.output')}`,
      `Node 'esc': ${escaped('$INPUTS.topic')}`,
    ]);
  });

  it('says nothing where the value arrives through the environment, quoted heredocs and ${…} words included', () => {
    expect(
      warningsOf([
        count,
        {
          id: 'safe',
          depends_on: ['count'],
          bash: [
            `x=$count.output; echo "$count.output" '$count.output' $'$count.output' "$(echo $count.output)" \`echo $count.output\``,
            'cat <<EOF',
            '$count.output',
            'EOF',
            "cat <<'EOF'",
            '$count.output',
            'EOF',
            'cat <<<$count.output; echo ${x:-$count.output} "${x#$count.output}"; [[ $count.output == 3 ]]',
          ].join('\n'),
        },
      ]),
    ).toEqual([]);
  });

  it('names run variables in arithmetic, $-less ones too, but not in comments or after a backslash, where the shell reads them itself', () => {
    const warnings = warningsOf([
      { id: 'v', bash: 'echo $(( $WORKFLOW_ID ))\n# writes $ARTIFACTS_DIR\necho "\\$ARTIFACTS_DIR"\n(( ARGUMENTS > 1 )) && let n=INPUTS_TOPIC+1' },
    ], { inputs: { topic: {} } });
    expect(warnings).toEqual([
      `Node 'v': ${arith('$WORKFLOW_ID', '$((…))')}`,
      `Node 'v': ${bareName('ARGUMENTS', '((…))', 4)}`,
      `Node 'v': ${bareName('INPUTS_TOPIC', 'a let argument', 4)}`,
    ]);
  });

  it('warns for a reference in a quoted heredoc Cairn cannot rewrite: inside backticks, or with an odd delimiter', () => {
    const warnings = warningsOf([count, { id: 'bt', depends_on: ['count'], bash: "x=`cat <<'EOF'\n$count.output\nEOF\n`\ncat <<'E O'\n$count.output\nE O" }]);
    expect(warnings).toEqual([
      `Node 'bt': '$count.output' ${on(2)} is in a heredoc quoted as <<'EOF' inside backticks (where bash removes a level of backslashes first), ` +
        'which Cairn cannot rewrite to pass the value; use $(…) instead of backticks; the node fails when it runs.',
      `Node 'bt': '$count.output' ${on(6)} is in a heredoc quoted as <<'E O' whose delimiter Cairn cannot write unquoted to pass the value; ` +
        'use a delimiter of letters, digits, _, . and -; the node fails when it runs.',
    ]);
  });

  it('checks until_bash of loops and loop_groups, and loop_group body nodes, naming the field and the node', () => {
    const warnings = warningsOf([
      count,
      { id: 'l', depends_on: ['count'], loop: { prompt: 'go', until_bash: 'test $(( $count.output )) -gt 0', max_iterations: 2 } },
      {
        id: 'g',
        depends_on: ['count'],
        loop_group: {
          max_iterations: 2,
          until_bash: 'true # $count.output',
          nodes: [{ id: 'b', bash: 'echo $(( $LOOP_PREV.b.output + 1 ))' }],
        },
      },
    ]);
    expect(warnings).toEqual([
      `Node 'l': loop.until_bash: ${arith('$count.output', '$((…))')}`,
      `Node 'g': loop_group.until_bash: ${comment('$count.output')}`,
      `Node 'g' → loop_group node 'b': ${arith('$LOOP_PREV.b.output', '$((…))')}`,
    ]);
  });

  it('reports a repeated reference in the same place once, and leaves prompts and scripts alone', () => {
    const warnings = warningsOf([
      count,
      { id: 'twice', depends_on: ['count'], bash: 'echo $(( $count.output * $count.output ))' },
      { id: 'p', depends_on: ['count'], prompt: 'Compute $(( $count.output )) # $count.output' },
      { id: 's', depends_on: ['count'], script: '// $count.output\nconsole.log(1)', runtime: 'bun' },
    ]);
    expect(warnings).toEqual([`Node 'twice': ${arith('$count.output', '$((…))')}`]);
  });

  it('tells the truth: each warned body behaves as the warning says when substituted', () => {
    const ctx: SubstitutionContext = {
      variables: { ARGUMENTS: 'three' },
      inputs: {},
      declaredInputs: [],
      outputs: (id) => (id === 'count' ? { status: 'completed', output: 'three\nEOF' } : undefined),
    };
    const body = (text: string) => substituteShell(text, ctx, 'sh');
    for (const text of ['echo $(( $count.output + 1 ))', '[[ $count.output -gt 1 ]]', 'read $count.output', '(( ARGUMENTS ))', "x=`cat <<'EOF'\n$count.output\nEOF\n`"]) {
      expect(body(text), text).toMatchObject({ ok: false, error: { code: 'unsafe_reference' } });
    }
    expect(body("cat <<'EOF'\n$count.output\nEOF")).toMatchObject({ ok: true });
    const untouched = body('echo ok # $count.output\necho \\$count.output');
    expect(untouched).toMatchObject({ ok: true });
    expect(untouched.ok && untouched.text).toContain('# $count.output\necho \\$count.output');
  });
});

describe('where the warnings show', () => {
  let t: TempProject;
  beforeEach(() => {
    t = makeTempProject();
  });
  afterEach(() => t.close());

  it('a project workflow with such a body loads, with the warning in parseWarnings', () => {
    t.write(
      'project:.cairn/workflows/math.yaml',
      'name: math\ndescription: adds one\nnodes:\n  - id: n\n    bash: "echo 2"\n  - id: add\n    depends_on: [n]\n    bash: "echo $(( $n.output + 1 ))"\n',
    );
    const listing = t.catalog.list({ cwd: t.cwd });
    expect(listing.errors).toEqual([]);
    expect(listing.workflows.find((w) => w.workflow.name === 'math')?.parseWarnings).toEqual([`Node 'add': ${arith('$n.output', '$((…))')}`]);
  });
});

describe('the real workflows', () => {
  const roots = [
    fileURLToPath(new URL('../../workflows/', import.meta.url)),
    ...['upstream-defaults', 'upstream-e2e'].map((set) => fileURLToPath(new URL(`../fixtures/corpus/${set}/workflows/`, import.meta.url))),
  ];

  it('the bundled workflows and the upstream corpus get no shell reference warning (their shell references are all safe)', () => {
    const found: string[] = [];
    let bodies = 0;
    for (const root of roots) {
      expect(existsSync(root), `missing ${root}`).toBe(true);
      for (const file of readdirSync(root).filter((f) => /\.ya?ml$/.test(f))) {
        const parsed = parseDraft(parse(readFileSync(join(root, file), 'utf8')));
        bodies += parsed.nodes.filter((n) => 'bash' in n).length;
        found.push(...checkShellReferences(parsed.nodes).map((w) => `${file}: ${w}`));
      }
    }
    expect(bodies).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });
});
