import { ANSI, BARE, DOUBLE, ESCAPED, SINGLE } from './contexts.js';
import { braceOperator } from './brace-operator.js';
import type { ScanState } from './scan-state.js';
import type { ShellContext } from './types.js';

/**
 * The half of the tokenizer that reads expansions: double-quoted and heredoc text, `${…}` with
 * its operators (subscripts and `:offset:length` are arithmetic), `$(…)` and backticks (a
 * backtick substitution is the text up to the next unescaped backtick, read as a list of its
 * own), `$((…))` and `$[…]`.
 */

/** What reads the list of commands inside a substitution (read-commands.ts). */
export interface ListReader {
  readList(end: 'top' | 'paren'): unknown;
}

export class ExpansionReader {
  constructor(
    private readonly s: ScanState,
    private readonly commands: ListReader,
  ) {}

  /** Text where `$…` and backticks expand: from a `"` to its closing one, or (heredoc) to the region's end. Returns its literal text when it has no expansion. */
  readDouble(context: ShellContext, heredoc = false): string | undefined {
    const s = this.s;
    if (!heredoc) s.pos++;
    let literal: string | undefined = '';
    const escapable = heredoc ? '$`\\\n' : '$`"\\\n';
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (c === '"' && !heredoc) {
        s.pos++;
        return literal;
      }
      if (c === '\\' && escapable.includes(s.at(s.pos + 1) ?? 'x')) {
        if (s.at(s.pos + 1) === '$') s.record(s.pos + 1, ESCAPED);
        if (literal !== undefined && s.at(s.pos + 1) !== '\n') literal += s.at(s.pos + 1);
        s.pos += 2;
      } else if (c === '$') {
        if (this.readDollar(context)) literal = undefined;
        else if (literal !== undefined) literal += '$';
      } else if (c === '`') {
        this.readBackticks();
        literal = undefined;
      } else {
        if (literal !== undefined) literal += c;
        s.pos++;
      }
    }
    return heredoc ? literal : undefined;
  }

  /** An expansion at a `$` read in `context`; false (the `$` consumed) when it is a lone `$`. */
  readDollar(context: ShellContext): boolean {
    const s = this.s;
    const at = s.pos;
    const next = s.at(at + 1);
    if (next === '(' && s.at(at + 2) === '(') {
      s.pos = at + 3;
      this.readArith('$((…))', '))');
    } else if (next === '(') {
      s.pos = at + 2;
      this.readSubstitution();
    } else if (next === '[') {
      s.pos = at + 2;
      this.readArith('$[…]', ']');
    } else if (next === '{') {
      s.record(at, context);
      s.pos = at + 2;
      this.readBrace(context);
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      s.record(at, context);
      s.pos = at + 1;
      while (s.pos < s.limit && /\w/.test(s.text[s.pos]!)) s.pos++;
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      // `$$` is the shell's pid: a `$NAME` right after it is text, not an expansion.
      if (next === '$') s.record(at + 1, ESCAPED);
      s.pos = at + 2;
    } else {
      s.pos = at + 1;
      return false;
    }
    return true;
  }

  /** `$(…)` or `<(…)`, from after the `(`: a list of its own. */
  readSubstitution(): void {
    const s = this.s;
    s.barrier();
    s.closers.push(')');
    this.commands.readList('paren');
    s.closers.pop();
    s.endCollect();
  }

  /** `` `…` ``: the text up to the next unescaped backtick, read as a list of its own. */
  readBackticks(): void {
    const s = this.s;
    let close = s.pos + 1;
    while (close < s.limit && s.text[close] !== '`') close += s.text[close] === '\\' ? 2 : 1;
    close = Math.min(close, s.limit);
    const outer = { limit: s.limit, pending: s.pending };
    s.limit = close;
    s.pending = [];
    s.pos++;
    s.barrier();
    s.closers.push('`');
    this.commands.readList('top');
    s.closers.pop();
    s.endCollect();
    s.limit = outer.limit;
    s.pending = outer.pending;
    s.pos = Math.min(close + 1, s.limit);
  }

  /**
   * Arithmetic text, to `))` or `]` at depth 0 (consumed), or (`${v:off:len}`) to a `:` or `}`
   * (not consumed). Every `$` in it is in arithmetic; `$(…)` in it starts a command of its own.
   */
  readArith(where: string, close: '))' | ']' | ':}' | '}'): void {
    const s = this.s;
    const context: ShellContext = { kind: 'arith', where, quoting: 'arith' };
    const start = s.pos;
    let end = s.limit;
    let paren = 0;
    let bracket = 0;
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (paren === 0 && bracket === 0 && close.includes(c) && (c !== ')' || close === '))')) {
        end = s.pos;
        if (close === '))') s.pos += s.at(s.pos + 1) === ')' ? 2 : 1;
        else if (close === ']') s.pos++;
        break;
      }
      if (c === '(') paren++;
      else if (c === ')') paren--;
      else if (c === '[') bracket++;
      else if (c === ']') bracket--;
      if (c === '\\') {
        if (s.at(s.pos + 1) === '$') s.record(s.pos + 1, ESCAPED);
        s.pos += 2;
      } else if (c === '$') this.readDollar(context);
      else if (c === '`') this.readBackticks();
      else if (c === "'") {
        const quoteEnd = closingQuote(s, s.pos + 1, false);
        s.recordRange(s.pos, quoteEnd, context);
        s.pos = quoteEnd;
      } else s.pos++;
    }
    s.arithmetic.push({ start, end: Math.min(end, s.pos), where });
  }

  /** `${…}`, from after the brace: a parameter, its subscript, and its operator's words. */
  private readBrace(context: ShellContext): void {
    const s = this.s;
    const first = s.at(s.pos);
    if ((first === '#' || first === '!') && s.at(s.pos + 1) !== '}' && s.at(s.pos + 1) !== undefined) s.pos++;
    const nameStart = s.pos;
    const c = s.at(s.pos) ?? '';
    if (/[A-Za-z_]/.test(c)) while (/\w/.test(s.at(s.pos) ?? '')) s.pos++;
    else if (/[0-9]/.test(c)) while (/[0-9]/.test(s.at(s.pos) ?? '')) s.pos++;
    else if (c !== '' && '@*#?-$!'.includes(c)) s.pos++;
    const name = s.text.slice(nameStart, s.pos);
    if (s.at(s.pos) === '[') {
      s.pos++;
      if (s.names.assoc.has(name)) this.readBraceWord(context, ']', 'word');
      else this.readArith('an array subscript', ']');
      if (s.at(s.pos) === ']') s.pos++;
    }
    const op = braceOperator(s.text, s.pos, s.limit);
    s.pos += op.length;
    if (op.kind === 'substring') {
      this.readArith('${v:offset:length}', ':}');
      if (s.at(s.pos) === ':') {
        s.pos++;
        this.readArith('${v:offset:length}', '}');
      }
    } else if (op.kind === 'replace') {
      this.readBraceWord(context, '/', 'pattern');
      if (s.at(s.pos) === '/') s.pos++;
      this.readBraceWord(context, '}', 'pattern');
    } else if (op.kind !== 'end') this.readBraceWord(context, '}', op.kind === 'pattern' ? 'pattern' : 'word');
    if (s.at(s.pos) === '}') s.pos++;
  }

  /**
   * The word of a `${…}` operator, up to `stop` or the closing `}`. Single quotes always hide a
   * `}`; inside double quotes they are text for `:-`-like operators (and what they hold expands)
   * and quotes for pattern operators.
   */
  private readBraceWord(context: ShellContext, stop: '}' | '/' | ']', flavor: 'word' | 'pattern'): void {
    const s = this.s;
    const inner = context.kind === 'arith' || context.kind === 'double' || context.kind === 'heredoc' ? context : BARE;
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (c === stop || c === '}') return;
      if (c === '\\') {
        if (s.at(s.pos + 1) === '$') s.record(s.pos + 1, ESCAPED);
        s.pos += 2;
      } else if (c === "'") {
        const end = closingQuote(s, s.pos + 1, false);
        if (inner === BARE || flavor === 'pattern' || context.kind === 'arith') s.recordRange(s.pos, end, context.kind === 'arith' ? context : SINGLE);
        else this.readWithin(end - 1, inner);
        s.pos = end;
      } else if (c === '$' && s.at(s.pos + 1) === "'") {
        const end = closingQuote(s, s.pos + 2, true);
        s.recordRange(s.pos, end, context.kind === 'arith' ? context : ANSI);
        s.pos = end;
      } else if (c === '"') this.readDouble(context.kind === 'arith' ? context : DOUBLE);
      else if (c === '$') this.readDollar(inner);
      else if (c === '`') this.readBackticks();
      else s.pos++;
    }
  }

  /** Reads [pos + 1, end) as expanding text in `context`, as if it were a region of its own. */
  private readWithin(end: number, context: ShellContext): void {
    const s = this.s;
    const limit = s.limit;
    s.limit = end;
    s.pos++;
    this.readDouble(context, true);
    s.limit = limit;
  }
}

/** The offset after the `'` that closes a quote whose text starts at `from` (`$'…'` honours `\'`). */
export function closingQuote(s: ScanState, from: number, escapes: boolean): number {
  for (let j = from; j < s.limit; j++) {
    if (escapes && s.text[j] === '\\') j++;
    else if (s.text[j] === "'") return j + 1;
  }
  return s.limit;
}
