import { describe, expect, it } from 'vitest';
import { scanShellBody } from '../../../src/workflow/substitution/shell-context.js';
import { namesInArithmetic } from '../../../src/workflow/shell-syntax/arithmetic-names.js';
import { contexts } from './scan.js';

/** Where bash evaluates text as arithmetic, or reads it as a variable name. */

describe('arithmetic bash evaluates by itself', () => {
  it('$((…)), ((…)), $[…] and for ((…)), wherever they stand', () => {
    expect(contexts('echo $(( $a.output + 1 )) "$(( $b.output ))"; (( $c.output > 2 )) && echo $d.output')).toEqual([
      'arith $((…)) arith', 'arith $((…)) arith', 'arith ((…)) arith', 'bare',
    ]);
    expect(contexts('echo $[ $a.output ]; for (( i = $b.output; i < 3; i++ )); do echo $c.output; done')).toEqual([
      'arith $[…] arith', 'arith ((…)) arith', 'bare',
    ]);
  });

  it('array subscripts and ${v:offset:length}, also inside the words of other expansions', () => {
    expect(contexts('echo "${a[$a.output]}" ${s:$b.output:$c.output} ${s: -$d.output} "${x:-${a[$e.output]}}"')).toEqual([
      'arith an array subscript arith',
      'arith ${v:offset:length} arith',
      'arith ${v:offset:length} arith',
      'arith ${v:offset:length} arith',
      'arith an array subscript arith',
    ]);
  });

  it('a ${…} inside arithmetic is arithmetic too, but a $(…) there is a command of its own', () => {
    expect(contexts('echo $(( ${x:-$a.output} + $(wc -l < $b.output) ))')).toEqual(['arith $((…)) arith', 'bare']);
  });

  it('not the key of an associative array, nor ${s:-default}', () => {
    expect(contexts('declare -A m; echo "${m[$a.output]}"; m[$b.output]=1; echo ${s:-$c.output}')).toEqual(['double', 'bare', 'bare']);
  });
});

describe('words bash evaluates as arithmetic because of their command', () => {
  it('[[ a -eq|-ne|-lt|-le|-gt|-ge b ]] operands, quoted or not, past && and ( ), and nothing else in [[ ]]', () => {
    expect(contexts('[[ $a.output -gt 1 && ( "$b.output" -eq 2 || 3 -lt ${x:-$c.output} ) ]] && echo $d.output')).toEqual([
      'arith [[ … -gt … ]] bare', 'arith [[ … -eq … ]] double', 'arith [[ … -lt … ]] bare', 'bare',
    ]);
    expect(contexts('[[ $a.output == 1 && $b.output -ne 2 && -n $c.output ]]\n[[ $d.output -le 1 ]]\n[ $e.output -ge 1 ]')).toEqual([
      'bare', 'arith [[ … -ne … ]] bare', 'bare', 'arith [[ … -le … ]] bare', 'bare',
    ]);
  });

  it('let arguments', () => {
    expect(contexts('let n=$a.output "m = $b.output"; echo $c.output')).toEqual(['arith a let argument bare', 'arith a let argument double', 'bare']);
  });

  it('declare -i, local -i and typeset -i values, and later assignments to those names', () => {
    expect(contexts('declare -i n=$a.output; local -ri m="$b.output"; typeset -i k; k=$c.output; k+=$d.output; j=$e.output')).toEqual([
      'arith declare -i bare', 'arith local -i double', 'arith an assignment to k, declared -i bare', 'arith an assignment to k, declared -i bare', 'bare',
    ]);
    expect(contexts('declare -ai a=(1 $a.output [2]=$b.output); declare x=$c.output')).toEqual(['arith declare -i bare', 'arith declare -i bare', 'bare']);
  });

  it('subscripts of assignments and compound assignments, not of associative arrays', () => {
    expect(contexts('a[$a.output]=1; b=([$b.output]=x $c.output); declare -A m=([$d.output]=y); m[$e.output]=z')).toEqual([
      'arith an array subscript bare', 'arith an array subscript bare', 'bare', 'bare', 'bare',
    ]);
  });

  it('after command or builtin, and in a function body', () => {
    expect(contexts('command let x=$a.output; f() { builtin declare -i n=$b.output; }')).toEqual(['arith a let argument bare', 'arith declare -i bare']);
  });
});

describe('words bash reads as variable names', () => {
  it('read, unset, printf -v, [[ -v ]], test -v, declare and declare -n; a subscript in them is arithmetic', () => {
    expect(contexts('read -r $a.output; read -a $b.output -p "$c.output" x; unset -v $d.output "a[$e.output]"')).toEqual([
      'name read bare', 'name read -a bare', 'double', 'name unset bare', 'arith an array subscript double',
    ]);
    expect(contexts('printf -v $a.output %s $b.output; [[ -v $c.output ]]; test -v "$d.output"; [ -v $e.output ]')).toEqual([
      'name printf -v bare', 'bare', 'name [[ -v bare', 'name test -v double', 'name [ -v bare',
    ]);
    expect(contexts('declare "$a.output=1"; local x=$b.output; declare -n r=$c.output; export $d.output')).toEqual([
      'name declare double', 'bare', 'name declare -n bare', 'name export bare',
    ]);
  });
});

describe('names read as variables inside arithmetic', () => {
  const names = (body: string) => namesInArithmetic(body, scanShellBody(body, []).arithmetic).map((n) => n.name);

  it('are found in every arithmetic context, but not $name, ${name} or a reference field', () => {
    expect(names('(( ARGUMENTS > 1 )); echo $(( $USER_MESSAGE + ${CONTEXT} )); let n=INPUTS_X')).toEqual(['ARGUMENTS', 'n', 'INPUTS_X']);
    expect(names('[[ COUNT -gt 1 ]]; a[IDX]=1; echo ${s:OFF} $(( $m.output ))')).toEqual(['COUNT', 'IDX', 'OFF']);
  });
});
