/**
 * Where the string literals and comments of a bun (JavaScript/TypeScript) or uv (Python) script
 * are, so that a reference written inside a string (`"--tag=$INPUTS.tag"`, ``String.raw`$ARGUMENTS` ``,
 * `f"{x} $ARGUMENTS"`) can be given its value as the upstream gives it, through the environment,
 * instead of becoming the text of an expression. A small lexer, not a parser: it knows quotes,
 * escapes, comments, JavaScript template literals with their `${…}` holes and Python's string
 * prefixes, triple quotes and f-string `{…}` holes. A regular-expression literal is read as code
 * (a quote inside one may mislead it; the script then fails to parse, it never runs a value).
 */

export type ScriptRuntime = 'bun' | 'uv';

/** A string literal (or comment) of the script: `start`/`end` span it whole. */
export interface ScriptLiteral {
  kind: 'string' | 'template' | 'comment';
  start: number;
  end: number;
  /** What opens it: the prefix and the quote (`"`, `'''`, `r"`, `` ` ``). */
  open: string;
  /** What closes it: the quote. */
  close: string;
  /** Ranges inside it that are code again: `${…}` of a template, `{…}` of a Python f-string. */
  holes: { start: number; end: number }[];
}

/** Every string literal and comment of `text`, in order. */
export function scriptLiterals(text: string, runtime: ScriptRuntime): ScriptLiteral[] {
  const found: ScriptLiteral[] = [];
  lex(text, 0, runtime, found, undefined);
  return found;
}

/** The literal a position falls in, unless it falls in one of its holes (then it is code). */
export function literalAt(literals: readonly ScriptLiteral[], at: number): ScriptLiteral | undefined {
  for (const literal of literals) {
    if (at < literal.start || at >= literal.end) continue;
    if (literal.holes.some((hole) => at >= hole.start && at < hole.end)) continue;
    return literal;
  }
  return undefined;
}

/**
 * Lexes code from `i` until the end, or until the `}` that closes a hole (`closeAt` set): returns
 * the index after that brace.
 */
function lex(text: string, i: number, runtime: ScriptRuntime, found: ScriptLiteral[], closeAt: '}' | undefined): number {
  let depth = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (closeAt && c === '{') depth++;
    else if (closeAt && c === '}') {
      if (depth === 0) return i + 1;
      depth--;
    }
    if (runtime === 'bun') {
      if (c === '/' && text[i + 1] === '/') i = comment(text, i, '\n', found);
      else if (c === '/' && text[i + 1] === '*') i = comment(text, i, '*/', found);
      else if (c === '"' || c === "'") i = quoted(text, i, i, c, c, found);
      else if (c === '`') i = template(text, i, runtime, found);
      else i++;
    } else {
      if (c === '#') i = comment(text, i, '\n', found);
      else {
        const prefix = pythonPrefix(text, i);
        if (prefix === undefined) i++;
        else i = pythonString(text, i, prefix, runtime, found);
      }
    }
  }
  return i;
}

function comment(text: string, i: number, end: string, found: ScriptLiteral[]): number {
  const at = text.indexOf(end, i + 2);
  const stop = at === -1 ? text.length : end === '\n' ? at : at + end.length;
  found.push({ kind: 'comment', start: i, end: stop, open: '', close: '', holes: [] });
  return stop;
}

/** A string without holes from `start` (its prefix) whose quote opens at `quoteAt`. */
function quoted(text: string, start: number, quoteAt: number, open: string, close: string, found: ScriptLiteral[]): number {
  let i = quoteAt + close.length;
  while (i < text.length && !text.startsWith(close, i)) {
    if (text[i] === '\\') i++;
    else if (text[i] === '\n' && close.length === 1) break; // an unterminated string ends with its line
    i++;
  }
  const end = Math.min(text.length, i + close.length);
  found.push({ kind: 'string', start, end, open, close, holes: [] });
  return end;
}

function template(text: string, start: number, runtime: ScriptRuntime, found: ScriptLiteral[]): number {
  const literal: ScriptLiteral = { kind: 'template', start, end: text.length, open: '`', close: '`', holes: [] };
  found.push(literal);
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') i += 2;
    else if (c === '`') {
      literal.end = i + 1;
      return i + 1;
    } else if (c === '$' && text[i + 1] === '{') {
      const holeStart = i;
      i = lex(text, i + 2, runtime, found, '}');
      literal.holes.push({ start: holeStart, end: i });
    } else i++;
  }
  return i;
}

/** The string prefix (`r`, `f`, `rb`, ... or '') when a Python string starts at `i`. */
function pythonPrefix(text: string, i: number): string | undefined {
  // A prefix must not continue a name: `bar"` is not a string prefix, `x = r"…"` is.
  if (i > 0 && /[\w]/.test(text[i - 1]!) && /[a-zA-Z]/.test(text[i]!)) return undefined;
  const match = /^([rRbBuUfF]{0,2})(?=["'])/.exec(text.slice(i, i + 3));
  return match ? match[1] : undefined;
}

function pythonString(text: string, start: number, prefix: string, runtime: ScriptRuntime, found: ScriptLiteral[]): number {
  const quoteAt = start + prefix.length;
  const q = text[quoteAt]!;
  const close = text.startsWith(q.repeat(3), quoteAt) ? q.repeat(3) : q;
  const open = prefix + close;
  if (!/f/i.test(prefix)) return quoted(text, start, quoteAt, open, close, found);
  const literal: ScriptLiteral = { kind: 'string', start, end: text.length, open, close, holes: [] };
  found.push(literal);
  let i = quoteAt + close.length;
  while (i < text.length) {
    if (text.startsWith(close, i)) {
      literal.end = i + close.length;
      return literal.end;
    }
    const c = text[i]!;
    if (c === '\\' && !/r/i.test(prefix)) i += 2;
    else if (c === '{' && text[i + 1] === '{') i += 2;
    else if (c === '{') {
      const holeStart = i;
      i = lex(text, i + 1, runtime, found, '}');
      literal.holes.push({ start: holeStart, end: i });
    } else if (c === '\n' && close.length === 1) break;
    else i++;
  }
  literal.end = Math.min(text.length, i);
  return literal.end;
}
