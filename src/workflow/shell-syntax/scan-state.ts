import type { RoleMark } from './command-roles.js';
import { isQuoting, type ArithmeticSpan, type DeclaredNames, type QuotedHeredoc, type ShellContext } from './types.js';
import type { PendingHeredoc } from './heredoc.js';

/**
 * The scanner's cursor and findings. `limit` bounds the region being read: the whole body, or the
 * inside of backticks or a heredoc body, which bash reads as text of their own.
 */
export class ScanState {
  pos = 0;
  limit: number;
  readonly contexts = new Map<number, ShellContext>();
  readonly arithmetic: ArithmeticSpan[] = [];
  readonly heredocs: QuotedHeredoc[] = [];
  /** Heredocs opened on the current line, whose bodies start after its newline. */
  pending: PendingHeredoc[] = [];
  readonly names: DeclaredNames = { integer: new Set(), assoc: new Set() };
  /** What closes each command substitution we are in, innermost last. */
  readonly closers: (')' | '`')[] = [];
  private readonly wanted: readonly number[];
  private readonly wantedSet: ReadonlySet<number>;
  /** Positions read in the current word; `undefined` marks a command substitution's start. */
  private readonly collectors: (number[] | undefined)[] = [];

  constructor(readonly text: string, positions: readonly number[]) {
    this.limit = text.length;
    this.wanted = [...positions].sort((a, b) => a - b);
    this.wantedSet = new Set(positions);
  }

  /** The character at `i`, or undefined past the region. */
  at(i: number): string | undefined {
    return i < this.limit ? this.text[i] : undefined;
  }

  record(at: number, context: ShellContext): void {
    if (!this.wantedSet.has(at) || this.contexts.has(at)) return;
    this.contexts.set(at, context);
    this.collectors.at(-1)?.push(at);
  }

  recordRange(from: number, to: number, context: ShellContext): void {
    // Binary search for the first position at or after `from`: a body may hold thousands.
    let lo = 0;
    let hi = this.wanted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.wanted[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.wanted.length && this.wanted[i]! < to; i++) this.record(this.wanted[i]!, context);
  }

  /** Starts collecting the positions of a word; `endCollect` stops. */
  collect(): number[] {
    const refs: number[] = [];
    this.collectors.push(refs);
    return refs;
  }

  /** A command substitution starts: its positions belong to its own words, not the enclosing one. */
  barrier(): void {
    this.collectors.push(undefined);
  }

  endCollect(): void {
    this.collectors.pop();
  }

  /** Gives the positions a role marks the arithmetic or name context it stands in. */
  apply(marks: readonly RoleMark[]): void {
    for (const { word, from, to, role } of marks) {
      if (role.kind === 'arith' && to > from) this.arithmetic.push({ start: from, end: to, where: role.where });
      for (const ref of word.refs) {
        const quoting = this.contexts.get(ref)?.kind;
        if (ref < from || ref >= to || quoting === undefined || !isQuoting(quoting)) continue;
        this.contexts.set(ref, { kind: role.kind, where: role.where, quoting });
      }
    }
  }
}
