import { describe, expect, it } from 'vitest';
import { contexts } from './scan.js';

/** How the tokenizer reads quotes, escapes, comments, substitutions, `${…}`, `case` and heredocs. */

describe('quotes, escapes and comments', () => {
  it('tells bare, double, single, $-quoted and $"…" words apart', () => {
    expect(contexts(`echo $a.output "$b.output" '$c.output' $'$d.output' $"$e.output" x"y$f.output"z`)).toEqual([
      'bare', 'double', 'single', 'ansi', 'double', 'double',
    ]);
  });

  it('leaves a backslashed $ and a comment alone; a # inside a word starts no comment', () => {
    expect(contexts('echo \\$a.output "\\$b.output" x#$c.output # $d.output\necho $e.output')).toEqual([
      'escaped', 'escaped', 'bare', 'comment', 'bare',
    ]);
  });

  it('reads a line continuation as no newline', () => {
    expect(contexts("echo a \\\n  $a.output '\\\n$b.output'")).toEqual(['bare', 'single']);
  });
});

describe('command substitutions', () => {
  it('start a fresh command inside $(…) and backticks, also inside double quotes', () => {
    expect(contexts('echo "$(printf %s $a.output "$b.output")" `echo $c.output` "`echo \'$d.output\'`"')).toEqual([
      'bare', 'double', 'bare', 'single',
    ]);
  });

  it('end backticks at the next unescaped backtick, whatever quotes stand between', () => {
    expect(contexts("echo `echo '` $a.output")).toEqual(['bare']);
    expect(contexts('echo `echo \\`x\\` $a.output` "$b.output"')).toEqual(['bare', 'double']);
  });

  it('read a case pattern\'s ) inside $(…) as the pattern\'s, not the end of the substitution', () => {
    expect(contexts('x="$(case y in y) echo $a.output;; esac) $b.output"')).toEqual(['bare', 'double']);
    expect(contexts('x=$(case y in (y|z) echo 1;; *) (( $a.output ));; esac); echo "$b.output"')).toEqual([
      'arith ((…)) arith', 'double',
    ]);
  });
});

describe('${…}', () => {
  it('reads the words of its operators in the quoting around it', () => {
    expect(contexts('echo ${x:-$a.output} "${x:-$b.output}" ${x:+"$c.output"} ${x/$d.output/$e.output}')).toEqual([
      'bare', 'double', 'double', 'bare', 'bare',
    ]);
  });

  it('takes single quotes as text in "${x:-…}" (what they hold expands) and as quotes for patterns', () => {
    expect(contexts(`echo "\${x:-'$a.output'}" "\${x#'$b.output'}" \${x:-'$c.output'}`)).toEqual(['double', 'single', 'single']);
  });

  it("reads <<'EOF' inside ${…} as text, so the next line is code", () => {
    expect(contexts(": ${x:-<<'EOF'}\necho got $ARGUMENTS")).toEqual(['bare']);
    expect(contexts("echo \"${x:-<<'EOF'}\"\necho got $ARGUMENTS")).toEqual(['bare']);
    expect(contexts(": ${x:-'}'<<'EOF'}\necho got $ARGUMENTS")).toEqual(['bare']);
    expect(contexts(": ${x/a/<<'EOF'}\necho got $ARGUMENTS")).toEqual(['bare']);
  });

  it('nests: a ${…} in the word of another, and a } inside quotes does not close it', () => {
    expect(contexts('echo "${x:-${y:-$a.output}}" ${x:-"}"$b.output} $c.output')).toEqual(['double', 'bare', 'bare']);
  });
});

describe('heredocs', () => {
  it('read bodies after their line: unquoted ones expand, quoted ones do not, and the line after the delimiter is code', () => {
    expect(contexts("cat <<EOF; cat <<-'END'\n\"$a.output\" '$b.output'\nEOF\n\t$c.output\n\tEND\necho $d.output")).toEqual([
      'heredoc', 'heredoc', 'quoted_heredoc END', 'bare',
    ]);
    expect(contexts('cat <<"E O"\n$a.output\nE O\ncat << \\X\n$b.output\nX\ncat <<<$c.output')).toEqual([
      'quoted_heredoc E O', 'quoted_heredoc X', 'bare',
    ]);
  });

  it('read $(…), $((…)) and ${a[…]} in an unquoted body as bash does', () => {
    expect(contexts('cat <<EOF\n$(echo $a.output) $(( $b.output )) ${x[$c.output]} \\$d.output\nEOF')).toEqual([
      'bare', 'arith $((…)) arith', 'arith an array subscript arith', 'escaped',
    ]);
  });

  it('start the body after the line, even when a quoted word on it spans lines', () => {
    expect(contexts('cat <<EOF "a\n$a.output"\n$b.output\nEOF\necho $c.output')).toEqual(['double', 'heredoc', 'bare']);
  });

  it('inside $(…), end at a line that starts with the delimiter and has a ), and read the rest of it as code (bash 5)', () => {
    expect(contexts("x=$(cat <<'EOF'\n$a.output\nEOF)\necho $b.output")).toEqual(['quoted_heredoc EOF', 'bare']);
    expect(contexts("x=$(cat <<'EOF'\n$a.output\nEOFx)\necho $b.output")).toEqual(['quoted_heredoc EOF', 'bare']);
    expect(contexts("cat <<'EOF'\n$a.output\nEOF)\n$b.output\nEOF\necho $c.output")).toEqual([
      'quoted_heredoc EOF', 'quoted_heredoc EOF', 'bare',
    ]);
  });

  it('inside backticks, end where the backticks end', () => {
    expect(contexts("x=`cat <<'EOF'\n$a.output` ; echo $b.output\nEOF")).toEqual(['quoted_heredoc EOF', 'bare']);
  });

  it('leave a reference in the delimiter word and on the delimiter line as written', () => {
    expect(contexts('cat <<$a.output\n$b.output\n$a.output\necho $c.output')).toEqual(['escaped', 'heredoc', 'escaped', 'bare']);
  });
});
