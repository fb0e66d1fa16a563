import { filePreamble, type BodyEnvironment } from './body-environment.js';
import type { Reference } from './references.js';
import type { ReferenceError } from './resolve-output.js';
import { quotedReference, scanShellBody, type ShellContext, type ShellScan } from './shell-context.js';
import { namesInArithmetic } from './shell-syntax/arithmetic-names.js';
import {
  arithmeticValueError,
  arithmeticVariableError,
  isShellInteger,
  isShellName,
  lineOf,
  nameValueError,
  onLine,
} from './shell-value-rules.js';

/**
 * Writes the references of a `bash` body so that the shell expands each to exactly its value
 * and never reads the value as code. The value itself is never written into the script: it is
 * in an environment variable (`$ARGUMENTS` → `ARGUMENTS`, `$INPUTS.x` → `INPUTS_X`, an output
 * → `CAIRN_REF_<n>`), and the body gets a reference to that variable fit for where it stands:
 *
 *   bare                 `"${V}"`       one word, no splitting or globbing
 *   "double quotes"      `${V}`         expanded once; the value is not expanded again
 *   'single quotes'      `'"${V}"'`     closes the quotes, expands, reopens
 *   $'ansi quotes'       `'"${V}"$'`
 *   heredoc (<<EOF)      `${V}`
 *   heredoc (<<'EOF')    nothing expands there: the value's text, refused if a line of it starts
 *                        with the delimiter (inside `$(…)` bash ends the heredoc at `EOF)` too)
 *   arithmetic           as for its quoting, once the value is a decimal integer: bash evaluates
 *                        the text there and runs `$(…)` hidden in a subscript of it
 *   a variable name      as for its quoting, once the value is a plain name
 *   comment, \$escaped   left as written
 *
 * Arithmetic is `$((…))`, `((…))`, `$[…]`, `let`, `[[ -gt ]]`-style operands, `declare -i`
 * values, array subscripts and `${v:offset:length}`; names are what `read`, `unset`, `printf -v`,
 * `declare`, `[[ -v ]]` take. A value that is not fit fails the node before anything runs, and so
 * does a variable Cairn puts in the environment named bare inside arithmetic (`(( ARGUMENTS ))`)
 * whose value is not an integer or empty.
 */

export interface ResolvedValue {
  /** The environment variable holding the value. */
  name: string;
  text: string;
}

type Resolve = (ref: Reference) => { ok: true; value: ResolvedValue } | { ok: false; error: ReferenceError };
type Result = { ok: true; text: string } | { ok: false; error: ReferenceError };

export function renderShellBody(
  text: string,
  refs: readonly Reference[],
  env: BodyEnvironment,
  resolve: Resolve,
  /** The values Cairn puts in the environment, by variable name. */
  environment: ReadonlyMap<string, string>,
): Result {
  const scan = scanShellBody(text, refs.map((r) => r.start));
  let out = '';
  let last = 0;
  for (const [index, ref] of refs.entries()) {
    const context = scan.contexts[index]!;
    if (context.kind === 'comment' || context.kind === 'escaped') continue;
    const resolved = resolve(ref);
    if (!resolved.ok) return resolved;
    const written = text.slice(ref.start, ref.end);
    const refused = refusal(context, resolved.value.text, written, () => lineOf(text, ref.start));
    if (refused) return unsafe(refused);
    let piece = resolved.value.text;
    if (context.kind !== 'quoted_heredoc') {
      env.place(resolved.value.name, resolved.value.text);
      piece = referenceIn(context, resolved.value.name);
    }
    out += text.slice(last, ref.start) + piece;
    last = ref.end;
  }
  const named = refusedName(text, scan, environment);
  if (named) return unsafe(named);
  return { ok: true, text: filePreamble(env.inFiles) + out + text.slice(last) };
}

function refusal(context: ShellContext, value: string, written: string, line: () => number): string | undefined {
  if (context.kind === 'arith' && !isShellInteger(value)) return arithmeticValueError(written, line(), context.where);
  if (context.kind === 'name' && !isShellName(value)) return nameValueError(written, line(), context.where);
  if (context.kind === 'quoted_heredoc') {
    const lines = value.split('\n').map((l) => (context.stripTabs ? l.replace(/^\t+/, '') : l));
    if (lines.some((l) => l.startsWith(context.delimiter))) {
      return (
        `${written} ${onLine(line())} is inside a heredoc quoted as <<'${context.delimiter}', and its value has a line starting with ` +
        `'${context.delimiter}' that could end the heredoc and run the rest as commands. Use an unquoted delimiter (<<${context.delimiter}), ` +
        `or printf '%s\\n' "${written}" instead of a heredoc`
      );
    }
  }
  return undefined;
}

function referenceIn(context: ShellContext, name: string): string {
  switch (context.kind) {
    case 'arith':
    case 'name':
      return quotedReference(context.quoting, name);
    case 'comment':
    case 'escaped':
    case 'quoted_heredoc':
      throw new Error('a reference left as written, or spliced as text, has no variable reference');
    default:
      return quotedReference(context.kind, name);
  }
}

/** A variable of the environment named bare in arithmetic whose value bash would evaluate as code. */
function refusedName(text: string, scan: ShellScan, environment: ReadonlyMap<string, string>): string | undefined {
  for (const { name, at, where } of namesInArithmetic(text, scan.arithmetic)) {
    const value = environment.get(name);
    if (value !== undefined && value !== '' && !isShellInteger(value)) return arithmeticVariableError(name, lineOf(text, at), where);
  }
  return undefined;
}

function unsafe(message: string): { ok: false; error: ReferenceError } {
  return { ok: false, error: { code: 'unsafe_reference', message } };
}
