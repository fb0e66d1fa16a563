import { filePreamble, type BodyEnvironment } from './body-environment.js';
import type { Reference } from './references.js';
import type { ReferenceError } from './resolve-output.js';
import { shellContextsAt, variableReference, type ShellContext } from './shell-context.js';

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
 *   heredoc (<<'EOF')    nothing expands there: the value's text, refused if a line of it
 *                        would end the heredoc
 *   $((…)), ((…))        the shell evaluates arithmetic (and runs `$(…)` in array subscripts):
 *                        the value's text when it is a decimal integer, refused otherwise
 *   comment, \$escaped   left as written
 *
 * `$(…)` and backticks start a fresh command inside, so the rules above apply within them.
 */

export interface ResolvedValue {
  /** The environment variable holding the value. */
  name: string;
  text: string;
}

type Resolve = (ref: Reference) => { ok: true; value: ResolvedValue } | { ok: false; error: ReferenceError };

export function renderShellBody(
  text: string,
  refs: readonly Reference[],
  env: BodyEnvironment,
  resolve: Resolve,
): { ok: true; text: string } | { ok: false; error: ReferenceError } {
  const contexts = shellContextsAt(text, refs.map((r) => r.start));
  let out = '';
  let last = 0;
  for (const [index, ref] of refs.entries()) {
    const context = contexts[index]!;
    if (context.kind === 'comment' || context.kind === 'escaped') continue;
    const resolved = resolve(ref);
    if (!resolved.ok) return resolved;
    const piece = inContext(context, resolved.value, text.slice(ref.start, ref.end));
    if (!piece.ok) return piece;
    if (!literalContexts.has(context.kind)) env.place(resolved.value.name, resolved.value.text);
    out += text.slice(last, ref.start) + piece.text;
    last = ref.end;
  }
  const body = out + text.slice(last);
  return { ok: true, text: filePreamble(env.inFiles) + body };
}

const literalContexts = new Set<ShellContext['kind']>(['quoted_heredoc', 'arith']);

function inContext(
  context: ShellContext,
  value: ResolvedValue,
  written: string,
): { ok: true; text: string } | { ok: false; error: ReferenceError } {
  const reference = variableReference(context, value.name);
  if (reference !== undefined) return { ok: true, text: reference };
  switch (context.kind) {
    case 'quoted_heredoc': {
      const lines = value.text.split('\n').map((line) => (context.stripTabs ? line.replace(/^\t+/, '') : line));
      if (!lines.includes(context.delimiter)) return { ok: true, text: value.text };
      return unsafe(
        `${written} is inside a heredoc quoted as <<'${context.delimiter}', and its value has a line '${context.delimiter}' ` +
          'that would end the heredoc and run the rest as commands. Use an unquoted delimiter (<<EOF), or printf \'%s\\n\' ' +
          `"${written}" instead of a heredoc`,
      );
    }
    case 'arith':
      if (/^[+-]?\d+$/.test(value.text)) return { ok: true, text: value.text };
      return unsafe(
        `${written} is used inside $((…)) or ((…)), where the shell evaluates it as arithmetic, and its value is not a ` +
          'decimal integer (arithmetic can run commands hidden in the value). Check the value first, e.g. ' +
          `n=${written}; case "$n" in *[!0-9]*|'') exit 1;; esac; echo $((n + 1))`,
      );
    default:
      return { ok: true, text: written };
  }
}

function unsafe(message: string): { ok: false; error: ReferenceError } {
  return { ok: false, error: { code: 'unsafe_reference', message } };
}
