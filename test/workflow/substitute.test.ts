import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { OutputLookup, ProducerState } from '../../src/workflow/substitution/resolve-output.js';
import {
  conditionLookup,
  substitutePrompt,
  substituteShell,
  type SubstitutionContext,
} from '../../src/workflow/substitution/substitute.js';
import { decideWhen } from '../../src/workflow/when/condition-evaluate.js';

function outputs(states: Record<string, ProducerState>): OutputLookup {
  return (id) => states[id];
}

function context(overrides: Partial<SubstitutionContext> = {}): SubstitutionContext {
  return {
    variables: { ARGUMENTS: 'fix the login bug', WORKFLOW_ID: 'run-1', ARTIFACTS_DIR: '/tmp/artifacts', BASE_BRANCH: 'main' },
    inputs: { version: '1.2.0', 'release-tone': 'neutral' },
    declaredInputs: ['version', 'release-tone'],
    outputs: outputs({
      'bash-echo': { status: 'completed', output: '{"status":"ok","value":42}' },
      plan: { status: 'completed', output: "Step 1: don't panic" },
      skipped: { status: 'skipped' },
      broken: { status: 'failed', error: 'exit 1' },
    }),
    ...overrides,
  };
}

/** Runs a substituted shell body in a real `sh` with its environment. */
function runShell(body: string, ctx: SubstitutionContext): string {
  const result = substituteShell(body, ctx, 'sh');
  if (!result.ok) throw new Error(result.error.message);
  const run = spawnSync('sh', ['-c', result.text], { encoding: 'utf8', env: { PATH: process.env.PATH, ...result.env } });
  if (run.status !== 0) throw new Error(`sh failed: ${run.stderr}`);
  return run.stdout;
}

describe('substitutePrompt', () => {
  it('splices outputs, fields, inputs and variables as plain text', () => {
    const result = substitutePrompt(
      'Task: $ARGUMENTS ($WORKFLOW_ID). Plan: $plan.output. Status $bash-echo.output.status, value $bash-echo.output.value. Version $INPUTS.version in $ARTIFACTS_DIR.',
      context(),
    );
    expect(result).toEqual({
      ok: true,
      env: {},
      text: "Task: fix the login bug (run-1). Plan: Step 1: don't panic. Status ok, value 42. Version 1.2.0 in /tmp/artifacts.",
    });
  });

  it('never rescans a substituted value, so a message cannot inject a reference', () => {
    const ctx = context({ variables: { ARGUMENTS: 'print $plan.output and $WORKFLOW_ID' } });
    const result = substitutePrompt('Request: $ARGUMENTS', ctx);
    expect(result.ok && result.text).toBe('Request: print $plan.output and $WORKFLOW_ID');
  });

  it('reads a skipped producer as empty text', () => {
    const result = substitutePrompt('[$skipped.output]', context());
    expect(result.ok && result.text).toBe('[]');
  });

  it('fails on a failed producer instead of splicing stale or empty text', () => {
    const result = substitutePrompt('Use $broken.output', context());
    expect(result).toMatchObject({ ok: false, error: { code: 'producer_failed' } });
    expect(!result.ok && result.error.message).toContain("node 'broken' failed (exit 1)");
  });

  it('fails on an undeclared input and suggests the closest declared one', () => {
    const result = substitutePrompt('Tone: $INPUTS.release-tonne', context());
    expect(!result.ok && result.error).toEqual({
      code: 'input_undeclared',
      message: "$INPUTS.release-tonne is not a declared input (did you mean 'release-tone'?). Declared inputs: version, release-tone.",
    });
  });

  it('fails when a referenced variable has no value for the run, saying how to give it one', () => {
    const result = substitutePrompt('Base: $BASE_BRANCH', context({ variables: {} }));
    expect(!result.ok && result.error).toEqual({
      code: 'variable_unavailable',
      message:
        '$BASE_BRANCH has no value for this run: pass --base <branch> (baseBranch in the run request), set ' +
        'worktree.baseBranch in .cairn/config.yaml, or give the repository an origin/HEAD or a main branch',
    });
    const state = substitutePrompt('Notes in ${STATE_DIR}', context({ variables: {} }));
    expect(!state.ok && state.error.message).toMatch(/^\$STATE_DIR has no value for this run: it is kept per registered codebase .*cairn codebase add <dir>/);
  });

  it('fails with the run’s own reason for a variable it cannot use, even one with a default', () => {
    const why = 'docs.path in .cairn/config.yaml ("../x") cannot be used: it has a ".." part; fix it';
    const ctx = context({ variables: { BASE_BRANCH: 'main' }, unavailable: { DOCS_DIR: why } });
    const result = substitutePrompt('Read $DOCS_DIR', ctx);
    expect(!result.ok && result.error.message).toBe(`$DOCS_DIR has no value for this run: ${why}`);
    const shell = substituteShell('ls "$DOCS_DIR"', ctx, 'sh');
    expect(!shell.ok && shell.error.message).toBe(`$DOCS_DIR has no value for this run: ${why}`);
    // A body that does not use it runs, and its environment leaves the variable out.
    const other = substituteShell('echo "$BASE_BRANCH"', ctx, 'sh');
    expect(other.ok && other.env).toMatchObject({ BASE_BRANCH: 'main' });
    expect(other.ok && Object.keys(other.env)).not.toContain('DOCS_DIR');
    // Without a reason, $DOCS_DIR is the default folder.
    expect(runShell('printf %s "$DOCS_DIR"', context())).toBe('docs/');
  });

  it('keeps unrelated dollar words and appends issue context the prompt does not place', () => {
    const ctx = context({ variables: { ARGUMENTS: 'x', CONTEXT: 'Issue #7: crash on save' } });
    const result = substitutePrompt('Cost is $5 and $HOME stays. Do: $ARGUMENTS', ctx);
    expect(result.ok && result.text).toBe('Cost is $5 and $HOME stays. Do: x\n\nIssue #7: crash on save');
    const placed = substitutePrompt('Context first: $ISSUE_CONTEXT', ctx);
    expect(placed.ok && placed.text).toBe('Context first: Issue #7: crash on save');
  });

  it('checks declared output_format fields: undeclared fails, declared optional and absent is empty', () => {
    const ctx = context({
      outputs: outputs({
        classify: {
          status: 'completed',
          output: '{"category":"math"}',
          structured: { category: 'math' },
          outputFormat: { type: 'object', properties: { category: { type: 'string' }, note: { type: 'string' } }, required: ['category'] },
        },
      }),
    });
    expect(substitutePrompt('[$classify.output.note]', ctx)).toMatchObject({ ok: true, text: '[]' });
    expect(substitutePrompt('$classify.output.nonexistent_field', ctx)).toMatchObject({
      ok: false,
      error: { code: 'field_not_declared' },
    });
  });

  it('fails a field reference into output that is not a JSON object', () => {
    expect(substitutePrompt('$plan.output.title', context())).toMatchObject({ ok: false, error: { code: 'output_not_json_object' } });
  });
});

describe('substituteShell', () => {
  it('assigns the exact raw JSON when an output is assigned bare (corpus e2e-deterministic)', () => {
    const body = [
      'bash_echo=$bash-echo.output',
      `case "$bash_echo" in "'"*"'") echo "carries literal quotes"; exit 1 ;; esac`,
      `[ "$bash_echo" = '{"status":"ok","value":42}' ] || { echo "unexpected: $bash_echo"; exit 1; }`,
      'printf %s "$bash_echo"',
    ].join('\n');
    expect(runShell(body, context())).toBe('{"status":"ok","value":42}');
  });

  it('hands outputs over in the environment and writes a reference to them, never the value', () => {
    const result = substituteShell('echo $bash-echo.output.value "$bash-echo.output.status"', context(), 'sh');
    expect(result.ok && result.text).toBe('echo "${CAIRN_REF_1}" "${CAIRN_REF_2}"');
    expect(result.ok && result.env).toMatchObject({ CAIRN_REF_1: '42', CAIRN_REF_2: 'ok' });
  });

  it('passes user-controlled text through the environment, so it is never run as code', () => {
    const hostile = `'; touch pwned; echo '$(id)\`id\``;
    const ctx = context({ variables: { ARGUMENTS: hostile, USER_MESSAGE: hostile } });
    expect(runShell('printf %s "$ARGUMENTS"', ctx)).toBe(hostile);
    const producer = context({ outputs: outputs({ evil: { status: 'completed', output: hostile } }) });
    expect(runShell('x=$evil.output; printf %s "$x"', producer)).toBe(hostile);
  });

  it('gives inputs to shells as INPUTS_<UPPER_SNAKE>, and rewrites $INPUTS.name to that variable', () => {
    const result = substituteShell('echo $INPUTS.release-tone', context(), 'sh');
    expect(result.ok && result.text).toBe('echo "${INPUTS_RELEASE_TONE}"');
    expect(result.ok && result.env).toMatchObject({ INPUTS_VERSION: '1.2.0', INPUTS_RELEASE_TONE: 'neutral' });
    expect(runShell('printf "%s|%s" "$INPUTS_VERSION" $INPUTS.release-tone', context())).toBe('1.2.0|neutral');
  });

  it('exports run variables and writes each reference to one as a quoted expansion', () => {
    const result = substituteShell('cd "$ARTIFACTS_DIR" && echo ${WORKFLOW_ID}', context(), 'sh');
    expect(result.ok && result.text).toBe('cd "${ARTIFACTS_DIR}" && echo "${WORKFLOW_ID}"');
    expect(result.ok && result.env).toMatchObject({ ARTIFACTS_DIR: '/tmp/artifacts', WORKFLOW_ID: 'run-1', ARGUMENTS: 'fix the login bug' });
  });

  it('fails when the body needs a variable the run cannot resolve', () => {
    const result = substituteShell('git diff "$BASE_BRANCH"', context({ variables: { ARGUMENTS: 'x' } }), 'sh');
    expect(!result.ok && result.error.code).toBe('variable_unavailable');
  });

  it('sends values over 64 KiB through a file the body reads back, keeping the script and environment small', () => {
    const big = 'x'.repeat(100 * 1024);
    const written: string[] = [];
    const ctx = context({
      outputs: outputs({ big: { status: 'completed', output: big } }),
      spill: (value, name) => {
        written.push(`${name}:${value.length}`);
        return "/tmp/spill dir/it's.txt";
      },
    });
    const result = substituteShell('x=$big.output', ctx, 'sh');
    expect(result.ok && result.text).toBe(
      'CAIRN_REF_1="$(cat -- "$CAIRN_FILE_CAIRN_REF_1" && printf x)" && CAIRN_REF_1="${CAIRN_REF_1%x}" || ' +
        '{ echo "cairn: cannot read the value of CAIRN_REF_1 from ""$CAIRN_FILE_CAIRN_REF_1" >&2; exit 1; }; x="${CAIRN_REF_1}"',
    );
    expect(result.ok && result.env.CAIRN_FILE_CAIRN_REF_1).toBe("/tmp/spill dir/it's.txt");
    expect(written).toEqual([`CAIRN_REF_1:${100 * 1024}`]);
  });

  it('hands bun and uv scripts expressions that read the environment, never the value as code', () => {
    const hostile = '"); require("fs").writeFileSync("pwned", ""); ("';
    const ctx = context({ outputs: outputs({ 'bash-echo': { status: 'completed', output: '{"status":"ok","value":42}' }, evil: { status: 'completed', output: hostile } }) });
    const bun = substituteShell('const data = $bash-echo.output; const v = $INPUTS.version; const e = $evil.output;', ctx, 'bun');
    expect(bun.ok && bun.text).toBe(
      'const data = (JSON.parse(process.env.CAIRN_REF_1)); const v = (process.env.INPUTS_VERSION); const e = (process.env.CAIRN_REF_2);',
    );
    // Node runs the same JavaScript bun would: the values arrive exactly, nothing runs.
    if (!bun.ok) return;
    const js = spawnSync(process.execPath, ['-e', `${bun.text} console.log(JSON.stringify([data, v, e]))`], { encoding: 'utf8', env: { ...bun.env } });
    expect(JSON.parse(js.stdout)).toEqual([{ status: 'ok', value: 42 }, '1.2.0', hostile]);
    const uv = substituteShell('print([$bash-echo.output, $INPUTS.version, $evil.output])', ctx, 'uv');
    expect(uv.ok && uv.text).toBe(
      'print([(__import__("json").loads(__import__("os").environ["CAIRN_REF_1"])), (__import__("os").environ["INPUTS_VERSION"]), (__import__("os").environ["CAIRN_REF_2"])])',
    );
  });

  it('hands a script a large value through its file', () => {
    const big = `${'z'.repeat(100 * 1024)}\n`;
    const ctx = context({ outputs: outputs({ big: { status: 'completed', output: big } }), spill: () => '/values/big.txt' });
    const bun = substituteShell('const b = $big.output;', ctx, 'bun');
    expect(bun.ok && bun.text).toBe('const b = (require("node:fs").readFileSync(process.env.CAIRN_FILE_CAIRN_REF_1, "utf8"));');
    expect(bun.ok && bun.env).toMatchObject({ CAIRN_FILE_CAIRN_REF_1: '/values/big.txt' });
  });
});

describe('conditionLookup', () => {
  it('feeds when: the same values substitution sees', () => {
    const lookup = conditionLookup(context());
    expect(decideWhen("$bash-echo.output.status == 'ok' && $INPUTS.version == '1.2.0'", lookup)).toEqual({ run: true });
    expect(decideWhen("$broken.output == 'x'", lookup)).toMatchObject({ run: false, error: expect.stringContaining('failed') });
    expect(decideWhen("$INPUTS.nope == 'x'", lookup)).toMatchObject({ run: false, error: expect.stringContaining('not a declared input') });
  });
});
