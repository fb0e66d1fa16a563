/**
 * What the shell-syntax scanner reports about a `bash` body: how bash reads the text at each
 * position asked about, the spans bash evaluates as arithmetic, and the quoted heredocs.
 */

/** How a position is quoted where bash expands it once, as text. */
export type QuotingKind = 'bare' | 'double' | 'single' | 'ansi' | 'heredoc';

export type ShellContext =
  | { kind: QuotingKind }
  /** Not expanded by bash: a comment, a `\$`, a heredoc delimiter word. */
  | { kind: 'comment' | 'escaped' }
  /** The body of a heredoc whose delimiter is quoted (`<<'EOF'`): nothing expands there. */
  | { kind: 'quoted_heredoc'; heredoc: number; delimiter: string; stripTabs: boolean }
  /**
   * Bash evaluates the text there as arithmetic (`where` names the construct): a value with an
   * array subscript in it runs the subscript's `$(…)`. `quoting` is how the text is quoted
   * (`arith` inside `$((…))`, a subscript, an offset: no word splitting there).
   */
  | { kind: 'arith'; where: string; quoting: QuotingKind | 'arith' }
  /** Bash reads the text as a variable name (`read`, `unset`, `printf -v`, `[[ -v ]]`...). */
  | { kind: 'name'; where: string; quoting: QuotingKind };

export type ContextKind = ShellContext['kind'];

export interface Span {
  start: number;
  end: number;
}

/** Text bash evaluates as arithmetic, and the construct it is in. */
export interface ArithmeticSpan extends Span {
  where: string;
}

export interface QuotedHeredoc {
  delimiter: string;
  stripTabs: boolean;
  /** The delimiter word as written after `<<` (`'EOF'`, `"EOF"`, `\EOF`). */
  word: Span;
  /** The body, from the line after the operator's to the delimiter line (excluded). */
  body: Span;
  /** Inside backticks, where bash takes a level of backslashes away before reading it. */
  inBackticks: boolean;
}

/** One word of a command, as written. */
export interface ShellWord extends Span {
  /** The word's text after quote removal, when it has no expansion (so `-gt`, `let`, `-i` are known). */
  literal: string | undefined;
  /** Asked-about positions read directly in this word (not inside a command substitution). */
  refs: number[];
  /** The words of a compound assignment `a=( … )`. */
  elements?: ShellWord[];
}

export interface ShellScan {
  /** The context of each position asked about, in order. */
  contexts: ShellContext[];
  arithmetic: ArithmeticSpan[];
  heredocs: QuotedHeredoc[];
}

export const quotingKinds: ReadonlySet<ContextKind> = new Set(['bare', 'double', 'single', 'ansi', 'heredoc']);

export function isQuoting(kind: ContextKind): kind is QuotingKind {
  return quotingKinds.has(kind);
}

/** Names the body declares with attributes bash acts on: `-i` (assignments are arithmetic) and `-A`. */
export interface DeclaredNames {
  integer: Set<string>;
  assoc: Set<string>;
}
