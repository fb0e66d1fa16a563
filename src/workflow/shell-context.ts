/**
 * Where a position of a `bash` body stands for the shell: bare in a command, inside single,
 * `$'…'` or double quotes, in a heredoc body (quoted delimiter or not), in arithmetic, in a
 * comment, or escaped by a backslash. Substitution uses it to write each reference so that the
 * shell expands it to exactly the value and never parses the value as code.
 *
 * A small scanner, not a parser: it tracks quotes, `$(…)`, backticks, `$((…))`/`((…))`,
 * heredocs and comments, which is what decides how a `$…` is read. Command substitutions and
 * backticks start a fresh command inside, wherever they stand (also inside double quotes).
 */

export type ShellContext =
  | { kind: 'bare' | 'double' | 'single' | 'ansi' | 'heredoc' | 'arith' | 'comment' | 'escaped' }
  | { kind: 'quoted_heredoc'; delimiter: string; stripTabs: boolean };

/**
 * How a shell variable `name` is written to read as its exact value where `context` is: quoted
 * where the shell would split or glob it, closing and reopening single and ANSI-C quotes around
 * it. Undefined for the contexts that need more than that (a quoted heredoc, arithmetic, ...).
 */
export function variableReference(context: ShellContext, name: string): string | undefined {
  const v = `\${${name}}`;
  switch (context.kind) {
    case 'bare':
      return `"${v}"`;
    case 'double':
    case 'heredoc':
      return v;
    case 'single':
      return `'"${v}"'`;
    case 'ansi':
      return `'"${v}"$'`;
    default:
      return undefined;
  }
}

type Frame =
  | { kind: 'cmd'; close: ')' | '`' | undefined; depth: number }
  | { kind: 'double' }
  | { kind: 'arith'; depth: number };

interface Heredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

/** The shell context at each of `positions` (ascending offsets of `$` signs in `body`). */
export function shellContextsAt(body: string, positions: readonly number[]): ShellContext[] {
  const out: ShellContext[] = [];
  const stack: Frame[] = [{ kind: 'cmd', close: undefined, depth: 0 }];
  const pending: Heredoc[] = [];
  let next = 0;
  let i = 0;
  /** Records `context` for every position in [i, upTo). */
  const mark = (upTo: number, context: ShellContext) => {
    while (next < positions.length && positions[next]! < upTo) {
      out.push(positions[next]! === i ? context : { kind: 'escaped' });
      next++;
    }
  };
  const skipTo = (end: number, context: ShellContext) => {
    while (next < positions.length && positions[next]! < end) {
      out.push(context);
      next++;
    }
    i = end;
  };

  while (i < body.length) {
    const top = stack.at(-1)!;
    const c = body[i]!;
    const here = (kind: 'bare' | 'double' | 'arith') => mark(i + 1, { kind });
    if (top.kind === 'double') {
      here('double');
      if (c === '\\') skipTo(i + 2, { kind: 'escaped' });
      else if (c === '"') (stack.pop(), i++);
      else i = opening(body, i, stack);
      continue;
    }
    if (top.kind === 'arith') {
      here('arith');
      if (c === '(') (top.depth++, i++);
      else if (c === ')' && top.depth > 0) (top.depth--, i++);
      else if (c === ')' && body[i + 1] === ')') (stack.pop(), (i += 2));
      else i = opening(body, i, stack);
      continue;
    }
    // A command (top level, inside $(…) or backticks).
    here('bare');
    if (c === '\\') skipTo(i + 2, { kind: 'escaped' });
    else if (c === "'") skipTo(closingQuote(body, i + 1, false), { kind: 'single' });
    else if (c === '$' && body[i + 1] === "'") skipTo(closingQuote(body, i + 2, true), { kind: 'ansi' });
    else if (c === '"') (stack.push({ kind: 'double' }), i++);
    else if (c === '#' && wordStart(body, i)) skipTo(lineEnd(body, i), { kind: 'comment' });
    else if (c === top.close && (c === '`' || top.depth === 0)) (stack.pop(), i++);
    else if (c === '(' && body[i + 1] === '(' && wordStart(body, i)) (stack.push({ kind: 'arith', depth: 0 }), (i += 2));
    else if (c === '(') (top.depth++, i++);
    else if (c === ')') (top.depth--, i++);
    else if (c === '<' && body.startsWith('<<<', i)) i += 3;
    else if (c === '<' && body[i + 1] === '<') i = heredocOperator(body, i, pending);
    else if (c === '\n' && pending.length) i = heredocBodies(body, i + 1, pending.splice(0), skipTo);
    else i = opening(body, i, stack);
  }
  mark(Infinity, { kind: 'bare' });
  return out;
}

/** `$((`, `$(` and a backtick open a frame wherever they stand; anything else is one character. */
function opening(body: string, i: number, stack: Frame[]): number {
  const c = body[i];
  if (c === '$' && body[i + 1] === '(' && body[i + 2] === '(') return stack.push({ kind: 'arith', depth: 0 }), i + 3;
  if (c === '$' && body[i + 1] === '(') return stack.push({ kind: 'cmd', close: ')', depth: 0 }), i + 2;
  if (c === '`') return stack.push({ kind: 'cmd', close: '`', depth: 0 }), i + 1;
  return i + 1;
}

function closingQuote(body: string, from: number, escapes: boolean): number {
  for (let j = from; j < body.length; j++) {
    if (escapes && body[j] === '\\') j++;
    else if (body[j] === "'") return j + 1;
  }
  return body.length;
}

function wordStart(body: string, i: number): boolean {
  return i === 0 || /[\s;&|()<>]/.test(body[i - 1]!);
}

function lineEnd(body: string, i: number): number {
  const nl = body.indexOf('\n', i);
  return nl === -1 ? body.length : nl;
}

/** Reads `<<[-] WORD` and queues the heredoc; returns the offset after the word. */
function heredocOperator(body: string, i: number, pending: Heredoc[]): number {
  let j = i + 2;
  const stripTabs = body[j] === '-';
  if (stripTabs) j++;
  while (body[j] === ' ' || body[j] === '\t') j++;
  const word = /^(?:[^\s;&|()<>'"\\]|\\.|'[^']*'|"[^"]*")+/.exec(body.slice(j))?.[0];
  if (!word) return j;
  const quoted = /['"\\]/.test(word);
  const delimiter = word.replace(/\\(.)/g, '$1').replace(/['"]/g, '');
  pending.push({ delimiter, quoted, stripTabs });
  return j + word.length;
}

/** Walks the bodies of the heredocs opened on the line just ended; returns the offset after them. */
function heredocBodies(
  body: string,
  from: number,
  docs: Heredoc[],
  skipTo: (end: number, ctx: ShellContext) => void,
): number {
  let i = from;
  for (const doc of docs) {
    for (;;) {
      if (i >= body.length) return body.length;
      const end = lineEnd(body, i);
      const line = body.slice(i, end);
      if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) {
        i = Math.min(end + 1, body.length);
        break;
      }
      const ctx: ShellContext = doc.quoted
        ? { kind: 'quoted_heredoc', delimiter: doc.delimiter, stripTabs: doc.stripTabs }
        : { kind: 'heredoc' };
      // A `$(…)` or backtick on an unquoted heredoc line is read as heredoc text: a reference
      // there is expanded unquoted (word-split), never parsed as code.
      skipTo(Math.min(end + 1, body.length), ctx);
      i = Math.min(end + 1, body.length);
    }
  }
  return i;
}
