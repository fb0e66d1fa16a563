import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { substituteShell, type SubstitutionContext } from '../../src/workflow/substitution/substitute.js';

/**
 * A reference written inside a string literal of a bun or uv script gives its value there, as
 * the upstream gives it: the upstream's release workflow writes `const args = "$ARGUMENTS"` and
 * ``String.raw`$ARGUMENTS` ``, and a `--dry-run` argument must reach the script as `--dry-run`,
 * not as the text of an expression (which would make a dry run real). The value still travels
 * in the environment: the script is run here (node for JavaScript, python3 for Python) with
 * hostile values that would break out of a literal if they were spliced into it.
 */

const hostile = 'a"b\'c`d${process.exit(4)}e\\n$(touch pwned)\n{__import__("os").system("x")}';

function context(args: string): SubstitutionContext {
  return {
    variables: { ARGUMENTS: args, WORKFLOW_ID: 'run-1', ARTIFACTS_DIR: '/tmp/artifacts' },
    inputs: { version: '1.2.0' },
    declaredInputs: ['version'],
    outputs: (id) => (id === 'list' ? { status: 'completed', output: '["x","y"]' } : undefined),
  };
}

function runJs(body: string, args: string): unknown {
  const result = substituteShell(body, context(args), 'bun');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const js = spawnSync(process.execPath, ['-e', `${result.text}\nconsole.log(JSON.stringify(out));`], { encoding: 'utf8', env: { ...result.env } });
  if (js.status !== 0) throw new Error(`node failed on:\n${result.text}\n${js.stderr}`);
  return JSON.parse(js.stdout);
}

function runPy(body: string, args: string): unknown {
  const result = substituteShell(body, context(args), 'uv');
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const py = spawnSync('python3', ['-c', `${result.text}\nimport json; print(json.dumps(out))`], { encoding: 'utf8', env: { ...result.env } });
  if (py.status !== 0) throw new Error(`python3 failed on:\n${result.text}\n${py.stderr}`);
  return JSON.parse(py.stdout);
}

describe('bun scripts: references inside strings', () => {
  it('reads "$ARGUMENTS" as the argument, so --dry-run stays a dry run', () => {
    expect(runJs('const args = "$ARGUMENTS"; const out = { dryRun: args.includes("--dry-run"), args };', '--dry-run')).toEqual({
      dryRun: true,
      args: '--dry-run',
    });
  });

  it('gives the value in single quotes, in String.raw templates and around a template hole', () => {
    const body = "const out = ['tag=$INPUTS.version!', String.raw`$ARGUMENTS`, `v${'$INPUTS.version'}-$INPUTS.version`, $list.output];";
    expect(runJs(body, 'C:\\new')).toEqual(['tag=1.2.0!', 'C:\\new', 'v1.2.0-1.2.0', ['x', 'y']]);
  });

  it('runs under bun itself (TypeScript too), as a bun node does', () => {
    const bun = fileURLToPath(new URL('../../node_modules/.bin/bun', import.meta.url));
    const result = substituteShell('const args: string = "$ARGUMENTS"; console.log(JSON.stringify({ dryRun: args.includes("--dry-run"), raw: String.raw`$ARGUMENTS` }));', context('--dry-run'), 'bun');
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const run = spawnSync(bun, ['-e', result.text], { encoding: 'utf8', env: { ...result.env, PATH: process.env.PATH } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ dryRun: true, raw: '--dry-run' });
  });

  it('keeps a hostile value data in every kind of literal', () => {
    const body = 'const out = ["$ARGUMENTS", \'$ARGUMENTS\', `$ARGUMENTS`, String.raw`$ARGUMENTS`, $ARGUMENTS];';
    expect(runJs(body, hostile)).toEqual([hostile, hostile, hostile, hostile, hostile]);
  });

  it('leaves a comment as written and still splices the paths Cairn chose', () => {
    const result = substituteShell('// uses $ARGUMENTS\nconst out = "$ARTIFACTS_DIR/notes-$ARGUMENTS.md";', context('x'), 'bun');
    expect(result.ok && result.text).toBe('// uses $ARGUMENTS\nconst out = `/tmp/artifacts/notes-${(process.env.ARGUMENTS)}.md`;');
  });
});

describe('uv scripts: references inside strings', () => {
  it('reads "$ARGUMENTS" as the argument', () => {
    expect(runPy('args = "$ARGUMENTS"\nout = {"dry_run": "--dry-run" in args, "args": args}', '--dry-run')).toEqual({ dry_run: true, args: '--dry-run' });
  });

  it("gives the value in f-strings, raw strings, triple quotes and with string operators", () => {
    const body = 'n = 2\nout = [f"{n * 2} $ARGUMENTS {{x}}", r\'\\d $INPUTS.version\', """v$INPUTS.version\nline""", "%s-$INPUTS.version" % "a", $list.output]';
    expect(runPy(body, 'go')).toEqual(['4 go {x}', '\\d 1.2.0', 'v1.2.0\nline', 'a-1.2.0', ['x', 'y']]);
  });

  it('keeps a hostile value data in every kind of literal', () => {
    const body = 'out = ["$ARGUMENTS", \'$ARGUMENTS\', f"$ARGUMENTS", r"$ARGUMENTS", """$ARGUMENTS""", $ARGUMENTS]  # $ARGUMENTS';
    expect(runPy(body, hostile)).toEqual([hostile, hostile, hostile, hostile, hostile, hostile]);
  });
});

describe('docs/workflows.md', () => {
  it('shows the template literal a JavaScript string becomes', async () => {
    const { readFile } = await import('node:fs/promises');
    const docs = await readFile(new URL('../../docs/workflows.md', import.meta.url), 'utf8');
    const result = substituteShell('"--tag=$INPUTS.tag"', { ...context(''), inputs: { tag: 'v1' }, declaredInputs: ['tag'] }, 'bun');
    expect(result.ok && result.text).toBe('`--tag=${(process.env.INPUTS_TAG)}`');
    expect(docs).toContain('`` `--tag=${(process.env.INPUTS_TAG)}` ``');
  });
});
