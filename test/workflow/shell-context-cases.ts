/**
 * Bash bodies with a reference in each place bash evaluates as arithmetic, reads as a variable
 * name, or where a heredoc or `${…}` decides how the line is read. `%REF%` stands for the
 * reference (`$ARGUMENTS`, `${ARGUMENTS}`, `$m.output`, `$INPUTS.n`). Shared by the unit, property
 * and end-to-end tests of substitution.
 */

export interface ArithmeticCase {
  label: string;
  body: string;
  /** The line of the body the reference is on (1-based). */
  line: number;
}

/** Every context where bash evaluates the reference's value as arithmetic. */
export const arithmeticCases: ArithmeticCase[] = [
  { label: '[[ -gt ]]', line: 1, body: 'if [[ %REF% -gt 10 ]]; then echo big; else echo small; fi' },
  { label: '[[ "…" -eq ]]', line: 1, body: '[[ "%REF%" -eq 42 ]] && echo same || echo other' },
  { label: '[[ -lt -le -ne -ge ]] with &&', line: 1, body: '[[ 1 -lt %REF% && %REF% -le 100 && %REF% -ne 7 && %REF% -ge 0 ]] && echo in || echo out' },
  { label: '[[ ]] on a later line', line: 2, body: 'echo start\n[[ %REF% -ge 42 ]] && echo ge || echo lt' },
  { label: '(( ))', line: 1, body: '(( %REF% > 10 )) && echo big || echo small' },
  { label: '$(( ))', line: 1, body: 'echo $(( %REF% + 1 ))' },
  { label: '"$(( ))"', line: 1, body: 'echo "$(( %REF% * 2 ))"' },
  { label: '$[ ]', line: 1, body: 'echo $[ %REF% - 1 ]' },
  { label: 'for (( ))', line: 1, body: 'for (( i = %REF%; i < %REF% + 2; i++ )); do echo $i; done' },
  { label: 'let "…"', line: 1, body: 'let "n = %REF% + 1"; echo $n' },
  { label: 'let', line: 1, body: 'let n=%REF%; echo $n' },
  { label: 'declare -i', line: 1, body: 'declare -i n=%REF%; echo $n' },
  { label: 'local -i', line: 1, body: 'f() { local -i n="%REF%"; echo $n; }; f' },
  { label: 'typeset -i, then an assignment', line: 1, body: 'typeset -i n; n=%REF%; echo $n' },
  { label: 'declare -i, then +=', line: 2, body: 'declare -i n=1\nn+=%REF%; echo $n' },
  { label: 'declare -ai element', line: 1, body: 'declare -ai a=(1 %REF%); echo "${a[*]}"' },
  { label: 'subscript assignment', line: 1, body: 'a=(x y z); a[%REF%]=set; echo "${a[*]}"' },
  { label: 'compound assignment subscript', line: 1, body: 'a=([%REF%]=hit); echo "${!a[*]}"' },
  { label: 'declare -a compound subscript', line: 1, body: 'declare -a a=([%REF%]=hit); echo "${!a[*]}"' },
  { label: '${a[…]}', line: 1, body: 'a=(x y z); echo "[${a[%REF%]}]"' },
  { label: '${a[…]:-default}', line: 1, body: 'a=(x y z); echo [${a[%REF%]:-none}]' },
  { label: '${s:offset}', line: 1, body: 's=abcdef; echo "[${s:%REF%}]"' },
  { label: '${s:offset:length}', line: 1, body: 's=abcdef; echo "[${s:1:%REF%}]"' },
  { label: '${a[*]:offset}', line: 1, body: 'a=(x y z); echo "[${a[*]:%REF%}]"' },
  { label: 'unquoted heredoc $(( ))', line: 2, body: 'cat <<EOF\n$(( %REF% + 1 ))\nEOF' },
  { label: 'unquoted heredoc ${a[…]}', line: 3, body: 'a=(x y z)\ncat <<EOF\n[${a[%REF%]}]\nEOF' },
  { label: '[[ ]] operand of ${x:-…}', line: 1, body: '[[ ${unset:-%REF%} -gt 10 ]] && echo big || echo small' },
  { label: 'unset "a[…]"', line: 1, body: 'a=(x y z); unset "a[%REF%]"; echo "${a[*]}"' },
  { label: '[[ -v a[…] ]]', line: 1, body: 'a=(x y z); [[ -v a[%REF%] ]] && echo set || echo unset' },
  { label: 'read "a[…]"', line: 1, body: 'read "a[%REF%]" <<< hi; echo "${a[*]}"' },
  { label: "printf -v 'a[…]'", line: 1, body: "printf -v 'a[%REF%]' %s hi; echo \"${a[*]}\"" },
];

/** Contexts where bash reads the value as a variable name (and evaluates a subscript in it). */
export const nameCases: ArithmeticCase[] = [
  { label: 'read', line: 1, body: 'read %REF% <<< hi; echo "${target-none}"' },
  { label: 'printf -v', line: 1, body: 'printf -v %REF% %s hi; echo "${target-none}"' },
  { label: 'unset', line: 1, body: 'target=hi; unset %REF%; echo "${target-gone}"' },
  { label: 'declare NAME=', line: 1, body: 'declare "%REF%=hi"; echo "${target-none}"' },
  { label: 'local', line: 1, body: 'f() { local %REF%=hi; echo "${target-none}"; }; f' },
  { label: '[[ -v ]]', line: 1, body: 'target=; [[ -v %REF% ]] && echo set || echo unset' },
  { label: 'test -v', line: 1, body: 'target=; test -v %REF% && echo set || echo unset' },
  { label: 'declare -n', line: 1, body: 'target=hi; declare -n r=%REF%; echo "$r"' },
];

/** Bare names of values Cairn puts in the environment, read by bash inside arithmetic. */
export const nameInArithmeticCases: ArithmeticCase[] = [
  { label: '(( ARGUMENTS ))', line: 1, body: '(( ARGUMENTS > 10 )) && echo big || echo small' },
  { label: '$(( INPUTS_N ))', line: 2, body: 'echo one\necho $(( INPUTS_N + 1 ))' },
  { label: '[[ USER_MESSAGE -gt ]]', line: 1, body: '[[ USER_MESSAGE -gt 10 ]] && echo big || echo small' },
  { label: 'let ARGUMENTS', line: 1, body: 'let n=ARGUMENTS+1; echo $n' },
];

export interface ExactCase {
  label: string;
  bodies: string[];
  /** What the body prints for a value `v`. */
  expected: (v: string) => string;
}

const dropTrailingNewlines = (v: string) => v.replace(/\n+$/, '');

/** Heredocs and `${…}`: the value arrives exactly, never as code. */
export const heredocCases: ExactCase[] = [
  {
    label: "<<'EOF' inside ${…} is no heredoc",
    bodies: [
      ": ${x:-<<'EOF'}\nprintf '%s\\n' \"got %REF%\"",
      "echo \"${x:-<<'EOF'}\" >/dev/null\nprintf '%s\\n' \"got %REF%\"",
      "y=a; : ${y/a/<<'EOF'}\nprintf '%s\\n' \"got %REF%\"",
      ": ${x:-'}'<<'EOF'}\nprintf '%s\\n' \"got %REF%\"",
    ],
    expected: (v) => `got ${v}\n`,
  },
  { label: 'quoted heredoc', bodies: ["cat <<'EOF'\n[%REF%] $HOME \\ `x`\nEOF"], expected: (v) => `[${v}] $HOME \\ \`x\`\n` },
  { label: '<<-quoted heredoc', bodies: ["cat <<-'EOF'\n\t[%REF%] $x\n\tEOF"], expected: (v) => `[${v}] $x\n` },
  {
    label: 'quoted heredoc in $( )',
    bodies: ["x=$(cat <<'EOF'\n%REF%\nEOF\n)\nprintf '%s' \"$x\"", "x=\"$(cat <<\\EOF\n%REF%\nEOF\n)\"\nprintf '%s' \"$x\""],
    expected: dropTrailingNewlines,
  },
];

/** Values that run `touch pwned` (or write `f`) wherever bash reads them as code. */
export const hostileValues = [
  'a[$(touch pwned)]',
  'x[$(id > f)]',
  '$(touch pwned)',
  '`touch pwned`',
  '1+1',
  'x; touch pwned',
  'x; id > f',
  '1\ntouch pwned',
  '"\'; touch pwned',
  'EOF\ntouch pwned',
  'EOF)\ntouch pwned',
  'x\nEOF)\ntouch pwned\n(',
  '0x10',
  '010',
  '08',
  '9'.repeat(40),
  '9223372036854775808',
  ' 42',
  '42\n',
  '+1',
  '',
];

/** Integers every arithmetic context takes as they are. */
export const integerValues = ['42', '0', '-1', '7', '9223372036854775807', '-9223372036854775808'];

/** The ways a body refers to one value, for `unitContext`'s value. */
export const referenceForms = ['$ARGUMENTS', '${ARGUMENTS}', '$USER_MESSAGE', '$m.output', '$INPUTS.n'];

export const withReference = (body: string, ref: string) => body.replaceAll('%REF%', ref);
