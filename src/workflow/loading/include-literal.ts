import { scanReferences } from '../substitution/references.js';
import { variableReference, type ShellContext } from '../substitution/shell-context.js';
import { INTEGER_RULE, isShellInteger, isShellName, NAME_RULE } from '../substitution/shell-value-rules.js';

/**
 * How an `include:` input's value (text known at load time, which may hold references) is
 * written into a `bash` body or a script so that it is read exactly as that text and never as
 * code.
 *
 * `bash`: the value is assigned once, on the body's first line, to a shell variable
 * (`CAIRN_WITH_<NAME>='fixed text'"$ARGUMENTS"…`: fixed text single-quoted, each reference in
 * double quotes, where the run-time substitution passes it through the environment), and each
 * `$INPUTS.<name>` becomes a reference to that variable fit for where it stands, as shell-body.ts
 * writes run values:
 *
 *   bare `"${V}"`   "double quotes" and heredoc `${V}`   'single' `'"${V}"'`   $'ansi' `'"${V}"$'`
 *   heredoc (<<'EOF')   nothing expands there: the value as written, refused if a line of it ends the heredoc
 *   arithmetic          the value when it is a decimal integer or one reference, refused otherwise
 *   a variable name     the value when it is a plain name or one reference, refused otherwise
 *   comment, \$escaped  left as written
 *
 * A NUL byte is refused (a shell cannot hold one), and so is a value over 64 KiB (the body is one
 * argument of the shell, at most 128 KiB).
 */

export type LiteralResult = { ok: true; text: string | undefined } | { ok: false; error: string };

/** The shell variable an include input is held in. */
export function includeVariableName(inputName: string): string {
  return `CAIRN_WITH_${inputName.replace(/-/g, '_').toUpperCase()}`;
}

/** The largest value written into a `bash` body: the body travels as one argument of the shell (128 KiB on Linux). */
export const MAX_SHELL_VALUE_BYTES = 64 * 1024;

/** `NAME=<value>; `: fixed text single-quoted, references double-quoted (substituted when the node runs). */
export function shellAssignment(name: string, value: string): LiteralResult {
  if (value.includes('\0')) return { ok: false, error: 'its value holds a NUL byte, which a shell cannot hold' };
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_SHELL_VALUE_BYTES) {
    return {
      ok: false,
      error: `its value is ${bytes} bytes, over the ${MAX_SHELL_VALUE_BYTES} a bash body can carry; keep it in a file and pass its path`,
    };
  }
  const parts = pieces(value).map((p) => (p.isReference ? `"${p.text}"` : `'${p.text.replace(/'/g, `'\\''`)}'`));
  return { ok: true, text: `${name}=${parts.join('') || "''"}; ` };
}

/** What stands for the value where `context` is; undefined leaves the reference as written. */
export function shellReference(context: ShellContext, name: string, value: string): LiteralResult {
  const reference = variableReference(context, name);
  if (reference !== undefined) return { ok: true, text: reference };
  switch (context.kind) {
    case 'quoted_heredoc': {
      const lines = value.split('\n').map((line) => (context.stripTabs ? line.replace(/^\t+/, '') : line));
      if (lines.includes(context.delimiter)) {
        return { ok: false, error: `its value has a line '${context.delimiter}' that would end the heredoc it stands in` };
      }
      return { ok: true, text: value };
    }
    case 'arith':
      return isShellInteger(value) || isOneReference(value)
        ? { ok: true, text: value }
        : { ok: false, error: `it stands in ${context.where}, where bash evaluates it as arithmetic, and its value is neither ${INTEGER_RULE} nor one reference` };
    case 'name':
      return isShellName(value) || isOneReference(value)
        ? { ok: true, text: value }
        : { ok: false, error: `it stands where bash reads a variable name (${context.where}), and its value is neither ${NAME_RULE} nor one reference` };
    default:
      return { ok: true, text: undefined };
  }
}

/** A value that is exactly one reference, checked where it lands when the node runs. */
function isOneReference(value: string): boolean {
  const refs = scanReferences(value);
  return refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === value.length;
}

/** Whether the value is placed through the variable in `context` (and so needs the assignment). */
export function usesVariable(context: ShellContext): boolean {
  return ['bare', 'double', 'heredoc', 'single', 'ansi'].includes(context.kind);
}

/** A value as a `bun` (JavaScript) or `uv` (Python) expression: fixed text as JSON string literals (valid in both), references joined with `+`. */
export function scriptValue(value: string): string {
  return `(${pieces(value).map((p) => (p.isReference ? p.text : JSON.stringify(p.text))).join(' + ')})`;
}

/** A value as pieces: fixed text, and the references it holds. */
function pieces(value: string): { text: string; isReference: boolean }[] {
  const out: { text: string; isReference: boolean }[] = [];
  let last = 0;
  for (const ref of scanReferences(value)) {
    if (ref.start > last) out.push({ text: value.slice(last, ref.start), isReference: false });
    out.push({ text: value.slice(ref.start, ref.end), isReference: true });
    last = ref.end;
  }
  if (last < value.length || out.length === 0) out.push({ text: value.slice(last), isReference: false });
  return out;
}
