import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkflowNode } from '../../src/workflow/schema/node-schema.js';
import { parseDraft } from '../../src/workflow/loading/parse-draft.js';
import { substituteShell } from '../../src/workflow/substitution/substitute.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';
import type { WorkflowDefinitionDraft } from '../../src/workflow/schema/workflow-schema.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-include-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function draft(definition: Record<string, unknown>): WorkflowDefinitionDraft {
  const parsed = parseDraft(definition);
  if (!parsed.draft) throw new Error(parsed.errors.join('; '));
  return parsed.draft;
}

/** Loads `nodes` with the blocks given by name; the nodes after expansion, or the errors. */
function load(nodes: unknown[], blocks: Record<string, WorkflowDefinitionDraft>, inputs?: Record<string, unknown>) {
  return validateWorkflowDefinition(
    { name: 'outer', description: 'd', ...(inputs ? { inputs } : {}), nodes },
    { resolveInclude: (name) => blocks[name] },
  );
}

function nodesOf(result: ReturnType<typeof load>): WorkflowNode[] {
  if (!result.valid) throw new Error(result.errors.join('; '));
  return result.workflow.nodes;
}

const releaseBlock = draft({
  name: 'release-block',
  description: 'notes for one version',
  inputs: { version: { required: true }, tone: { default: 'plain' }, extra: {} },
  returns: 'notes',
  nodes: [
    { id: 'log', bash: 'git log --oneline $INPUTS.version..HEAD' },
    { id: 'notes', depends_on: ['log'], prompt: 'Write $INPUTS.tone notes for $INPUTS.version[$INPUTS.extra] from $log.output' },
  ],
});

describe('include with: inputs', () => {
  it('substitutes with: values and declared defaults at load time, and the block keeps its own references', () => {
    const nodes = nodesOf(
      load(
        [
          { id: 'rel', include: 'release-block', with: { version: 'v1.2' } },
          { id: 'post', depends_on: ['rel'], prompt: 'Post $rel.output' },
        ],
        { 'release-block': releaseBlock },
      ),
    );
    expect(nodes).toEqual([
      // In a bash body the value is assigned to a shell variable, never spliced into the code.
      { id: 'rel__log', bash: `CAIRN_WITH_VERSION='v1.2'; git log --oneline "\${CAIRN_WITH_VERSION}"..HEAD` },
      { id: 'rel__notes', depends_on: ['rel__log'], prompt: 'Write plain notes for v1.2[] from $rel__log.output' },
      { id: 'post', depends_on: ['rel__notes'], prompt: 'Post $rel__notes.output' },
    ]);
  });

  it("keeps references inside a value live: the including workflow's inputs and nodes, renamed like its own", () => {
    const nodes = nodesOf(
      load(
        [
          { id: 'log', bash: 'echo outer' },
          { id: 'rel', include: 'release-block', depends_on: ['log'], with: { version: '$INPUTS.version', tone: 'from $log.output', extra: 3 } },
        ],
        { 'release-block': releaseBlock },
        { version: { required: true } },
      ),
    );
    expect(nodes.map((n) => ('bash' in n ? n.bash : 'prompt' in n ? n.prompt : ''))).toEqual([
      'echo outer',
      'CAIRN_WITH_VERSION="$INPUTS.version"; git log --oneline "${CAIRN_WITH_VERSION}"..HEAD',
      // `$log.output` is the including workflow's node, not the block's own `log`.
      'Write from $log.output notes for $INPUTS.version[3] from $rel__log.output',
    ]);
  });

  it('passes values through nested blocks', () => {
    const middle = draft({
      name: 'middle',
      description: 'd',
      inputs: { ver: { required: true } },
      nodes: [{ id: 'inner', include: 'release-block', with: { version: 'ver=$INPUTS.ver' } }],
    });
    const nodes = nodesOf(load([{ id: 'm', include: 'middle', with: { ver: "it's" } }], { middle, 'release-block': releaseBlock }));
    expect(nodes[1]).toMatchObject({ id: 'm__inner__notes', prompt: "Write plain notes for ver=it's[] from $m__inner__log.output" });
  });

  it('passes a value through nested blocks into a bash body, the same input name at both levels included', () => {
    const inner = draft({ name: 'inner', description: 'd', inputs: { v: {} }, nodes: [{ id: 'n', bash: 'printf %s "[$INPUTS.v]"' }] });
    const middle = draft({ name: 'middle', description: 'd', inputs: { v: {} }, nodes: [{ id: 'in', include: 'inner', with: { v: '<$INPUTS.v>' } }] });
    const [node] = nodesOf(load([{ id: 'm', include: 'middle', with: { v: "'$(touch pwned)'" } }], { middle, inner }));
    if (!node || !('bash' in node)) throw new Error('no bash node');
    const done = spawnSync('bash', ['-c', node.bash], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    expect(done.stdout).toBe("[<'$(touch pwned)'>]");
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  it('fails the including workflow’s load on a missing required input, an unknown with: key and an undeclared $INPUTS', () => {
    const missing = load([{ id: 'rel', include: 'release-block', with: { tone: 'warm' } }], { 'release-block': releaseBlock });
    expect(!missing.valid && missing.errors).toEqual([
      "Node 'rel' (include 'release-block'): missing required input 'version' (give it under with:)",
    ]);
    const unknown = load([{ id: 'rel', include: 'release-block', with: { version: '1', verison: '2' } }], { 'release-block': releaseBlock });
    expect(!unknown.valid && unknown.errors).toEqual([
      "Node 'rel' (include 'release-block'): with: 'verison' is not an input of 'release-block' (did you mean 'version'?). It declares: version, tone, extra.",
    ]);
    const sloppy = draft({ name: 'sloppy', description: 'd', inputs: { target: {} }, nodes: [{ id: 'a', prompt: 'Fix $INPUTS.targte' }] });
    const undeclared = load([{ id: 's', include: 'sloppy', with: { target: 'x' } }], { sloppy });
    expect(!undeclared.valid && undeclared.errors).toEqual([
      "Node 's' (include 'sloppy'): node 'a' uses $INPUTS.targte, which the included workflow does not declare (did you mean 'target'?) (it declares: target)",
    ]);
  });

  it('takes a one-reference value in when:, and refuses fixed text there with what to do instead', () => {
    const gated = draft({
      name: 'gated',
      description: 'd',
      inputs: { mode: { required: true } },
      nodes: [{ id: 'a', bash: 'echo a', when: "$INPUTS.mode == 'fast'" }],
    });
    const ok = nodesOf(load([{ id: 'g', include: 'gated', with: { mode: '$INPUTS.mode' } }], { gated }, { mode: { default: 'fast' } }));
    expect(ok[0]).toMatchObject({ id: 'g__a', when: "$INPUTS.mode == 'fast'" });
    const fixed = load([{ id: 'g', include: 'gated', with: { mode: 'fast' } }], { gated });
    expect(!fixed.valid && fixed.errors[0]).toContain("node 'a' when: $INPUTS.mode is compared in a condition, so its with: value must be one reference");
  });
});

/** Text that runs `touch pwned` wherever a shell reads it as code. */
const hostile = [
  '$(touch pwned)',
  '`touch pwned`',
  "'; touch pwned; '",
  '"; touch pwned; "',
  "$'\\x27'; touch pwned; echo '",
  '$((1+1)) ${PATH} $HOME * ?',
  'a\\',
  '\n\nline two\n  indented\t\ttabs\n\n',
  Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1)).join(''),
];

/** Block bodies in every quoting context, and what each prints for a value `v`. */
const shapes: Array<[string, string, (v: string) => string]> = [
  ['bare', 'printf %s $INPUTS.v', (v) => v],
  ['assignment', 'x=$INPUTS.v; printf %s "$x"', (v) => v],
  ['double quotes', 'printf %s "[$INPUTS.v]"', (v) => `[${v}]`],
  ['single quotes', "printf %s '[$INPUTS.v]'", (v) => `[${v}]`],
  ['$-quotes', "printf %s $'[\\t$INPUTS.v]'", (v) => `[\t${v}]`],
  ['heredoc', 'cat <<EOF\n"$INPUTS.v" \'$INPUTS.v\'\nEOF', (v) => `"${v}" '${v}'\n`],
  ['$(…) in double quotes', 'printf %s "$(printf %s "$INPUTS.v"; printf .)"', (v) => `${v}.`],
  ['parameter default', 'printf %s "${unset:-$INPUTS.v}"', (v) => v],
  ['backticks', 'printf %s "`printf %s $INPUTS.v; printf .`"', (v) => `${v}.`],
];

/** Expands a block whose bash body is `body` with `with: { v: value }`, then runs the node as the worker does. */
function runIncluded(body: string, value: string, argumentsValue: string): string {
  const block = draft({ name: 'b', description: 'd', inputs: { v: { required: true } }, nodes: [{ id: 'n', bash: body }] });
  const [node] = nodesOf(load([{ id: 'i', include: 'b', with: { v: value } }], { b: block }));
  if (!node || !('bash' in node)) throw new Error('no bash node');
  const result = substituteShell(node.bash, { variables: { ARGUMENTS: argumentsValue }, inputs: {}, declaredInputs: [], outputs: () => undefined }, 'sh');
  if (!result.ok) throw new Error(result.error.message);
  const done = spawnSync('bash', ['-c', result.text], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...result.env } });
  expect(done.status, done.stderr).toBe(0);
  expect(existsSync(join(dir, 'pwned'))).toBe(false);
  return done.stdout;
}

describe.each(shapes)('an include input in a bash body, %s', (_name, shape, expected) => {
  it.each(hostile.map((v) => [JSON.stringify(v).slice(0, 40), v]))('prints %s exactly and never runs it', (_label, value) => {
    expect(runIncluded(shape, value, 'unused')).toBe(expected(value));
    // Fixed text around a reference: the text is quoted at load time, the reference made safe when the node runs.
    expect(runIncluded(shape, `${value}<$ARGUMENTS>${value}`, value)).toBe(expected(`${value}<${value}>${value}`));
  });
});

/** The load errors of a block whose bash body is `body`, included with `with: { v: value }`. */
function refused(body: string, value: string): string[] {
  const block = draft({ name: 'b', description: 'd', inputs: { v: {} }, nodes: [{ id: 'n', bash: body }] });
  const result = load([{ id: 'i', include: 'b', with: { v: value } }], { b: block });
  return result.valid ? [] : result.errors;
}

describe('include input values a shell cannot take as fixed text', () => {
  it('splices a value into a quoted heredoc as written, and refuses one with a line that would end it', () => {
    expect(runIncluded("cat <<'EOF'\n$INPUTS.v\nEOF", '$(touch pwned) `x`', '')).toBe('$(touch pwned) `x`\n');
    expect(refused("cat <<'EOF'\n$INPUTS.v\nEOF", 'ok\nEOF\ntouch pwned')[0]).toContain("its value has a line 'EOF' that would end the heredoc");
    expect(refused("cat <<-'END'\n\t$INPUTS.v\nEND", 'ok\n\t\tEND\ntouch pwned')[0]).toContain("a line 'END'");
    // An unquoted heredoc expands the variable after it has found its end: such a line is data there.
    expect(runIncluded('cat <<EOF\n$INPUTS.v\nEOF', 'ok\nEOF\ntouch pwned', '')).toBe('ok\nEOF\ntouch pwned\n');
  });

  it('refuses a NUL byte, and a value too long to travel in a bash body', () => {
    expect(refused('printf %s $INPUTS.v', 'a\0b')[0]).toContain('NUL byte');
    expect(refused('printf %s $INPUTS.v', 'x'.repeat(70 * 1024))[0]).toContain('71680 bytes, over the 65536 a bash body can carry');
    expect(runIncluded('printf %s $INPUTS.v | wc -c', 'x'.repeat(60 * 1024), '').trim()).toBe(String(60 * 1024));
  });

  it('names a hostile with: key it does not know without acting on it', () => {
    const block = draft({ name: 'b', description: 'd', inputs: { v: {} }, nodes: [{ id: 'n', bash: 'echo $INPUTS.v' }] });
    for (const key of ['../../etc/passwd', "v'; rm -rf /", 'k'.repeat(10_000), 'v\0']) {
      const result = load([{ id: 'i', include: 'b', with: { [key]: 'x' } }], { b: block });
      expect(!result.valid && result.errors).toEqual([
        `Node 'i' (include 'b'): with: '${key}' is not an input of 'b'${key === 'v\0' ? " (did you mean 'v'?)" : ''}. It declares: v.`,
      ]);
    }
  });

  it('takes only a decimal integer (or one reference) in arithmetic, and a plain name where bash reads a name', () => {
    expect(runIncluded('echo $(( $INPUTS.v + 1 ))', '41', '')).toBe('42\n');
    expect(runIncluded('[[ $INPUTS.v -gt 10 ]] && echo big', '$ARGUMENTS', '42')).toBe('big\n');
    expect(runIncluded('read $INPUTS.v <<< hi; echo "$target"', 'target', '')).toBe('hi\n');
    for (const body of ['echo $(( $INPUTS.v + 1 ))', '[[ $INPUTS.v -gt 10 ]]', 'let n=$INPUTS.v', 'a[$INPUTS.v]=1', 'echo ${s:$INPUTS.v}']) {
      for (const value of ['a[$(touch pwned)]', '1+1', '010', 'x $ARGUMENTS']) {
        expect(refused(body, value)[0], `${value} in ${body}`).toContain('where bash evaluates it as arithmetic, and its value is neither a decimal integer');
      }
    }
    expect(refused('read $INPUTS.v <<< x', 'a[$(touch pwned)]')[0]).toContain('where bash reads a variable name (read)');
  });

  it('leaves a reference in a comment or after a backslash as written', () => {
    const block = draft({ name: 'b', description: 'd', inputs: { v: {} }, nodes: [{ id: 'n', bash: 'echo \\$INPUTS.v # $INPUTS.v' }] });
    // What is left is the including workflow's `$INPUTS.v`, as in any body of its own.
    const [node] = nodesOf(load([{ id: 'i', include: 'b', with: { v: '\ntouch pwned' } }], { b: block }, { v: {} }));
    expect(node).toMatchObject({ bash: 'echo \\$INPUTS.v # $INPUTS.v' });
  });
});

describe('an include input in an inline script', () => {
  it('becomes a string literal the script reads exactly', () => {
    const value = `"'\\\n$(touch pwned) \${x} \u2028`;
    const block = draft({ name: 'b', description: 'd', inputs: { v: {} }, nodes: [{ id: 'n', runtime: 'uv', script: 'import sys\nsys.stdout.write($INPUTS.v)' }] });
    const [node] = nodesOf(load([{ id: 'i', include: 'b', with: { v: value } }], { b: block }));
    if (!node || !('script' in node)) throw new Error('no script node');
    const done = spawnSync('python3', ['-c', node.script], { cwd: dir, encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toBe(value);
  });
});

describe('a block that declares no inputs: a passthrough, as in the upstream', () => {
  const open = draft({
    name: 'open-block',
    description: 'declares no inputs',
    nodes: [
      { id: 'say', bash: 'echo "$INPUTS.topic"' },
      { id: 'ask', depends_on: ['say'], prompt: 'About $INPUTS.topic for $INPUTS.owner' },
    ],
  });

  it('takes every with: value, and leaves a reference it is not given to the including workflow', () => {
    const nodes = nodesOf(
      load([{ id: 'inc', include: 'open-block', with: { topic: 'release notes', unused: 'x' } }], { 'open-block': open }, { owner: { default: 'docs team' } }),
    );
    expect(nodes).toEqual([
      { id: 'inc__say', bash: `CAIRN_WITH_TOPIC='release notes'; echo "\${CAIRN_WITH_TOPIC}"` },
      { id: 'inc__ask', depends_on: ['inc__say'], prompt: 'About release notes for $INPUTS.owner' },
    ]);
  });

  it('still names an input the including workflow does not declare', () => {
    const result = load([{ id: 'inc', include: 'open-block', with: { topic: 't' } }], { 'open-block': open });
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.errors.join('\n')).toContain('$INPUTS.owner');
  });

  it('keeps refusing an unknown with: key when the block declares its inputs, even none', () => {
    const closed = draft({ name: 'closed-block', description: 'd', inputs: {}, nodes: [{ id: 'a', bash: 'true' }] });
    const result = load([{ id: 'inc', include: 'closed-block', with: { topic: 't' } }], { 'closed-block': closed });
    expect(result.valid ? [] : result.errors).toEqual(["Node 'inc' (include 'closed-block'): with: 'topic' is not an input of 'closed-block'. It declares no inputs."]);
  });
});
