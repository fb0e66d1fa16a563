import type { ShellWord, Span } from './types.js';

/** The parts of an assignment word `name[subscript]=value` (or `+=`), as offsets of the body. */
export interface AssignmentParts {
  name: string;
  subscript: Span | undefined;
  value: Span;
}

/** The parts of `word` when it is an assignment, read from its text as written. */
export function assignmentParts(word: Span, text: string): AssignmentParts | undefined {
  const raw = text.slice(word.start, word.end);
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(raw)?.[0];
  if (!name) return undefined;
  let k = name.length;
  let subscript: Span | undefined;
  if (raw[k] === '[') {
    const close = closingBracket(raw, k);
    if (close === -1) return undefined;
    subscript = { start: word.start + k + 1, end: word.start + close };
    k = close + 1;
  }
  if (raw.startsWith('+=', k)) k += 2;
  else if (raw[k] === '=') k += 1;
  else return undefined;
  return { name, subscript, value: { start: word.start + k, end: word.end } };
}

/** Whether `prefix` (a word so far) ends where a compound assignment's `(` may follow: `a=`, `a+=`, `a[1]=`. */
export function isAssignmentPrefix(prefix: string): boolean {
  const parts = assignmentParts({ start: 0, end: prefix.length }, prefix);
  return parts !== undefined && parts.value.start === prefix.length;
}

/** A compound assignment element `[subscript]=value`: its parts, or undefined for a plain value. */
export function elementParts(word: ShellWord, text: string): { subscript: Span; value: Span } | undefined {
  const raw = text.slice(word.start, word.end);
  if (raw[0] !== '[') return undefined;
  const close = closingBracket(raw, 0);
  if (close === -1) return undefined;
  const eq = raw.startsWith('+=', close + 1) ? close + 3 : raw[close + 1] === '=' ? close + 2 : -1;
  if (eq === -1) return undefined;
  return { subscript: { start: word.start + 1, end: word.start + close }, value: { start: word.start + eq, end: word.end } };
}

/** The offset of the `]` that closes the `[` at `open`, or -1. */
function closingBracket(raw: string, open: number): number {
  let depth = 0;
  for (let i = open; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === '[') depth++;
    else if (raw[i] === ']' && --depth === 0) return i;
  }
  return -1;
}
