import type { Span } from './types.js';

/**
 * Heredocs as bash reads them: the delimiter word after `<<` or `<<-` (quoted anywhere, it makes
 * the body literal), and where the body ends.
 */

export interface PendingHeredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
  word: Span;
  /** Opened inside `$(…)`, where bash also ends the body at a line starting with the delimiter that has a `)` after it. */
  inParenSubstitution: boolean;
  inBackticks: boolean;
}

const wordEnd = /[\s;&|()<>]/;

/** Reads the delimiter word starting at `from`: its end, the delimiter bash compares lines with, and whether it is quoted. */
export function readDelimiterWord(text: string, from: number, limit: number): { end: number; delimiter: string; quoted: boolean } {
  let i = from;
  let delimiter = '';
  let quoted = false;
  while (i < limit && !wordEnd.test(text[i]!)) {
    const c = text[i]!;
    if (c === '\\') {
      quoted = true;
      delimiter += text[i + 1] ?? '';
      i += 2;
    } else if (c === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) {
      // `$(…)` and `${…}` are part of the word (bash does not expand them in a delimiter).
      const end = closingBracket(text, i + 1, limit);
      delimiter += text.slice(i, end);
      i = end;
    } else if (c === "'" || c === '"') {
      quoted = true;
      const close = text.indexOf(c, i + 1);
      const end = close === -1 || close >= limit ? limit : close;
      delimiter += text.slice(i + 1, end);
      i = end + 1;
    } else {
      delimiter += c;
      i++;
    }
  }
  return { end: Math.min(i, limit), delimiter, quoted };
}

/**
 * Where the body that starts at `from` ends (`bodyEnd`, the start of the delimiter line) and where
 * reading goes on (`resume`). Inside `$(…)` bash 5 also ends it at a line that starts with the
 * delimiter and has a `)` after it, and reads the rest of that line as code: so does this.
 */
export function findHeredocEnd(text: string, from: number, limit: number, doc: PendingHeredoc): { bodyEnd: number; resume: number } {
  let i = from;
  while (i < limit) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 || nl >= limit ? limit : nl;
    const line = text.slice(i, end);
    const stripped = doc.stripTabs ? line.replace(/^\t+/, '') : line;
    if (stripped === doc.delimiter) return { bodyEnd: i, resume: Math.min(end + 1, limit) };
    if (doc.inParenSubstitution && stripped.startsWith(doc.delimiter) && stripped.slice(doc.delimiter.length).includes(')')) {
      return { bodyEnd: i, resume: i + line.length - stripped.length + doc.delimiter.length };
    }
    i = end + 1;
  }
  return { bodyEnd: limit, resume: limit };
}

/** The offset after the bracket that closes the `(` or `{` at `open`. */
function closingBracket(text: string, open: number, limit: number): number {
  const [o, c] = text[open] === '(' ? ['(', ')'] : ['{', '}'];
  let depth = 0;
  for (let i = open; i < limit; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === o) depth++;
    else if (text[i] === c && --depth === 0) return i + 1;
  }
  return limit;
}
