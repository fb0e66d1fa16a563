import { filePreamble, type BodyEnvironment } from './body-environment.js';
import type { Reference } from './references.js';
import type { ReferenceError } from './resolve-output.js';
import { quotedReference, scanShellBody, type ShellContext, type ShellScan } from './shell-context.js';
import { applyEdits, unquoteHeredoc, type Edit } from './shell-heredoc-rewrite.js';
import { namesInArithmetic } from '../shell-syntax/arithmetic-names.js';
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
 *   heredoc (<<'EOF')    `${V}`, the heredoc rewritten as <<EOF with its own text escaped
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

/** The body with every reference written for where it stands, or why a value cannot stand there. */
export function renderShellBody(
  text: string,
  refs: readonly Reference[],
  env: BodyEnvironment,
  resolve: Resolve,
  /** The values Cairn puts in the environment, by variable name. */
  environment: ReadonlyMap<string, string>,
): Result {
  const scan = scanShellBody(text, refs.map((r) => r.start));
  const edits: Edit[] = [];
  const heredocRefs = new Map<number, Reference[]>();
  for (const [index, ref] of refs.entries()) {
    const context = scan.contexts[index]!;
    if (context.kind === 'comment' || context.kind === 'escaped') continue;
    const resolved = resolve(ref);
    if (!resolved.ok) return resolved;
    const written = text.slice(ref.start, ref.end);
    const refused = refusal(context, resolved.value.text, written, () => lineOf(text, ref.start));
    if (refused) return unsafe(refused);
    env.place(resolved.value.name, resolved.value.text);
    edits.push({ start: ref.start, end: ref.end, text: referenceIn(context, resolved.value.name) });
    if (context.kind === 'quoted_heredoc') heredocRefs.set(context.heredoc, [...(heredocRefs.get(context.heredoc) ?? []), ref]);
  }
  const named = refusedName(text, scan, environment);
  if (named) return unsafe(named);
  for (const [index, inside] of heredocRefs) {
    const doc = scan.heredocs[index]!;
    const rewrite = unquoteHeredoc(text, doc, inside);
    if (!rewrite.ok) {
      const first = text.slice(inside[0]!.start, inside[0]!.end);
      return unsafe(`${first} ${onLine(lineOf(text, inside[0]!.start))} is in a heredoc quoted as <<'${doc.delimiter}' ${rewrite.reason}. The node did not run.`);
    }
    edits.push(...rewrite.edits);
  }
  return { ok: true, text: filePreamble(env.inFiles) + applyEdits(text, edits) };
}

function refusal(context: ShellContext, value: string, written: string, line: () => number): string | undefined {
  if (context.kind === 'arith' && !isShellInteger(value)) return arithmeticValueError(written, line(), context.where);
  if (context.kind === 'name' && !isShellName(value)) return nameValueError(written, line(), context.where);
  return undefined;
}

function referenceIn(context: ShellContext, name: string): string {
  switch (context.kind) {
    case 'arith':
    case 'name':
      return quotedReference(context.quoting, name);
    case 'quoted_heredoc':
      return quotedReference('heredoc', name);
    case 'comment':
    case 'escaped':
      throw new Error('a reference left as written has no replacement');
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
