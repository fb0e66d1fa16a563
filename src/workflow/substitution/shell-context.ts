import { CommandReader } from '../shell-syntax/read-commands.js';
import { ScanState } from '../shell-syntax/scan-state.js';
import { isQuoting, type QuotingKind, type ShellContext, type ShellScan } from '../shell-syntax/types.js';

export type { ArithmeticSpan, QuotedHeredoc, QuotingKind, ShellContext, ShellScan } from '../shell-syntax/types.js';

/**
 * How bash reads a `bash` body: for each position asked about (the `$` of a reference), whether
 * it is bare, quoted, in a heredoc, in arithmetic, read as a variable name, in a comment or
 * escaped; with the spans bash evaluates as arithmetic and the quoted heredocs. A tokenizer of
 * bash's grammar does the reading (shell-syntax/read-commands.ts); substitution (shell-body.ts), the
 * validation warnings (check-shell-references.ts) and include inputs (include-inputs.ts) use it.
 */
export function scanShellBody(body: string, positions: readonly number[]): ShellScan {
  const state = new ScanState(body, positions);
  new CommandReader(state).readList('top');
  return {
    // A `$` the readers never stood on is one bash does not expand (inside a longer token): left as written.
    contexts: positions.map((p) => state.contexts.get(p) ?? { kind: 'escaped' }),
    arithmetic: state.arithmetic,
    heredocs: state.heredocs,
  };
}

/** The shell context at each of `positions` (offsets of `$` signs in `body`). */
export function shellContextsAt(body: string, positions: readonly number[]): ShellContext[] {
  return scanShellBody(body, positions).contexts;
}

/**
 * How a shell variable `name` is written to read as its exact value where text is quoted as
 * `quoting`: quoted where the shell would split or glob it, closing and reopening single and
 * ANSI-C quotes around it; bare inside arithmetic text, where nothing is split.
 */
export function quotedReference(quoting: QuotingKind | 'arith', name: string): string {
  const v = `\${${name}}`;
  switch (quoting) {
    case 'bare':
      return `"${v}"`;
    case 'single':
      return `'"${v}"'`;
    case 'ansi':
      return `'"${v}"$'`;
    default:
      return v;
  }
}

/** `quotedReference` where the context is a kind of quoting; undefined for the others. */
export function variableReference(context: ShellContext, name: string): string | undefined {
  return isQuoting(context.kind) ? quotedReference(context.kind, name) : undefined;
}
