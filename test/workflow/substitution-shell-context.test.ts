import { describe, expect, it } from 'vitest';
import { scanReferences } from '../../src/workflow/substitution/references.js';
import { shellContextsAt } from '../../src/workflow/substitution/shell-context.js';

/** The context kind of each reference in `body`, in order. */
function kinds(body: string): string[] {
  const refs = scanReferences(body);
  return shellContextsAt(body, refs.map((r) => r.start)).map((c) => c.kind);
}

describe('shellContextsAt', () => {
  it('tells bare, double-quoted, single-quoted and $-quoted words apart', () => {
    expect(kinds(`echo $a.output "$b.output" '$c.output' $'$d.output' x"y$e.output"z`)).toEqual([
      'bare', 'double', 'single', 'ansi', 'double',
    ]);
  });

  it('starts a fresh command inside $(…) and backticks, also inside double quotes', () => {
    expect(kinds('echo "$(printf %s $a.output "$b.output")" `echo $c.output` "`echo \'$d.output\'`"')).toEqual([
      'bare', 'double', 'bare', 'single',
    ]);
    expect(kinds('x="$(echo "$(echo $a.output)")"; echo $b.output')).toEqual(['bare', 'bare']);
  });

  it('knows arithmetic, comments and escaped dollars', () => {
    expect(kinds('echo $((1 + $a.output)); (( $b.output > 2 )) && echo $c.output # $d.output')).toEqual([
      'arith', 'arith', 'bare', 'comment',
    ]);
    expect(kinds('echo \\$a.output "\\$b.output" x#$c.output')).toEqual(['escaped', 'escaped', 'bare']);
  });

  it('reads heredoc bodies: unquoted ones expand, quoted ones do not, and the line after the delimiter is a command again', () => {
    const body = [
      'cat <<EOF; cat <<-\'END\'',
      `"$a.output" '$b.output'`,
      'EOF',
      '\t$c.output',
      '\tEND',
      'echo $d.output',
    ].join('\n');
    const refs = scanReferences(body);
    const contexts = shellContextsAt(body, refs.map((r) => r.start));
    expect(contexts).toEqual([
      { kind: 'heredoc' },
      { kind: 'heredoc' },
      { kind: 'quoted_heredoc', heredoc: 0, delimiter: 'END', stripTabs: true },
      { kind: 'bare' },
    ]);
    expect(kinds('cat <<"E O"\n$a.output\nE O\ncat << \\X\n$b.output\nX\ncat <<<$c.output')).toEqual([
      'quoted_heredoc', 'quoted_heredoc', 'bare',
    ]);
  });

  it('treats a quote inside a single-quoted word as data and a body that ends inside quotes as still quoted', () => {
    expect(kinds(`echo '"$a.output' "'$b.output" 'unterminated $c.output`)).toEqual(['single', 'double', 'single']);
  });
});
