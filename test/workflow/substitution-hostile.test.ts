import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { substituteShell, type SubstitutionContext } from '../../src/workflow/substitution/substitute.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-subst-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Text that runs `touch pwned` wherever a shell reads it as code. */
const hostile = [
  '$(touch pwned)',
  '`touch pwned`',
  "'; touch pwned; '",
  '"; touch pwned; "',
  "$'\\x27'; touch pwned; echo '",
  '$((1+1)) ${PATH} $HOME * ?',
  'a[$(touch pwned)]',
  '\n\nline two\n  indented\t\ttabs\n\n',
  // Every byte but NUL, as text (bytes over 0x7f are UTF-8 encoded).
  Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1)).join(''),
  'x'.repeat(200 * 1024) + '$(touch pwned)\n',
];

/** Bodies in every quoting context, and what each prints for a value `v`. */
const shapes: Array<[string, string, (v: string) => string]> = [
  ['bare', 'printf %s $m.output', (v) => v],
  ['assignment', 'x=$m.output; printf %s "$x"', (v) => v],
  ['double quotes', 'printf %s "[$m.output]"', (v) => `[${v}]`],
  ['single quotes', "printf %s '[$m.output]'", (v) => `[${v}]`],
  ['$-quotes', "printf %s $'[\\t$m.output]'", (v) => `[\t${v}]`],
  ['heredoc', 'cat <<EOF\n"$m.output" \'$m.output\'\nEOF', (v) => `"${v}" '${v}'\n`],
  ['$(…) in double quotes', 'printf %s "$(printf %s "$m.output"; printf .)"', (v) => `${v}.`],
  ['backticks', 'printf %s "`printf %s $m.output; printf .`"', (v) => `${v}.`],
  ['parameter default', 'printf %s "${unset:-$m.output}"', (v) => v],
];

function context(value: string): SubstitutionContext {
  return {
    variables: { ARGUMENTS: value },
    inputs: { topic: value },
    declaredInputs: ['topic'],
    outputs: (id) => (id === 'm' ? { status: 'completed', output: value } : undefined),
    spill: (text, name) => {
      const file = join(dir, `${name}.txt`);
      writeFileSync(file, text);
      return file;
    },
  };
}

/** Runs a body in bash as the worker does (`bash -c`, env from the substitution), in `dir`. */
function run(body: string, value: string): string {
  const result = substituteShell(body, context(value), 'sh');
  if (!result.ok) throw new Error(result.error.message);
  const done = spawnSync('bash', ['-c', result.text], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...result.env } });
  expect(done.status, done.stderr).toBe(0);
  expect(existsSync(join(dir, 'pwned'))).toBe(false);
  return done.stdout;
}

describe.each(shapes)('a reference %s', (_name, shape, expected) => {
  it.each(hostile.map((v) => [JSON.stringify(v).slice(0, 40), v]))('receives %s exactly and never runs it', (_label, value) => {
    for (const ref of ['$m.output', '$ARGUMENTS', '$INPUTS.topic']) {
      expect(run(shape.replaceAll('$m.output', ref), value)).toBe(expected(value));
    }
  });
});

describe('references the shell cannot take safely', () => {
  it('passes a value into a quoted heredoc exactly, even one with a line that is the delimiter', () => {
    expect(run("cat <<'EOF'\n$m.output\nEOF", '$(touch pwned) `x`')).toBe('$(touch pwned) `x`\n');
    expect(run("cat <<'EOF'\n$m.output\nEOF", 'ok\nEOF\ntouch pwned')).toBe('ok\nEOF\ntouch pwned\n');
  });

  it('splices an integer into arithmetic and refuses anything else there', () => {
    expect(run('echo $(( $m.output + 1 ))', '41')).toBe('42\n');
    for (const value of ['a[$(touch pwned)]', '1+1', '']) {
      const result = substituteShell('(( $m.output > 2 )) && echo big', context(value), 'sh');
      expect(!result.ok && result.error.code).toBe('unsafe_reference');
    }
  });

  it('leaves references in comments and after a backslash as written', () => {
    expect(run('echo \\$m.output # $m.output', '$(touch pwned)')).toBe('$m.output\n');
  });
});

describe('large values', () => {
  it('keep every environment entry under 64 KiB and read a 200 KB value back exactly, trailing newlines included', () => {
    const value = 'y'.repeat(200 * 1024) + '\n\n';
    const result = substituteShell('printf %s "$m.output" "$ARGUMENTS" $INPUTS.topic | wc -c', context(value), 'sh');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    for (const entry of Object.values(result.env)) expect(Buffer.byteLength(entry)).toBeLessThanOrEqual(64 * 1024);
    expect(readFileSync(result.env.CAIRN_FILE_ARGUMENTS!, 'utf8')).toBe(value);
    expect(run('printf %s "$m.output" "$ARGUMENTS" $INPUTS.topic "$INPUTS_TOPIC"', value)).toBe(value.repeat(4));
  });
});
