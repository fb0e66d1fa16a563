import type { Reference } from './references.js';
import type { ReferenceError } from './resolve-output.js';
import { literalAt, scriptLiterals, type ScriptLiteral, type ScriptRuntime } from './script-literals.js';

/**
 * Writes the references of a bun or uv script body, each where it stands:
 * - in code: an expression that reads the value (`(process.env.X)`, JSON parsed for an output);
 * - inside a string literal: the value as text, read the same way, the literal rebuilt around
 *   it (a JavaScript string becomes a template literal with a `${…}` hole; a Python string is cut
 *   and joined with `+` inside parentheses, keeping its prefix and quotes);
 * - inside a template literal: a `${…}` hole;
 * - inside a comment: left as written.
 * The value is never written into the code: only the expression that reads it.
 */

/**
 * What `resolve(ref, as)` answers: `expression`, code that reads the value (as `code`: parsed
 * when it is JSON; as `text`: the text itself), or `splice`, text Cairn itself chose (a path, an
 * id) written as it is wherever the reference stands.
 */
export type ScriptPiece = { ok: true; expression: string } | { ok: true; splice: string } | { ok: false; error: ReferenceError };
export function renderScriptBody(
  text: string,
  refs: readonly Reference[],
  runtime: ScriptRuntime,
  resolve: (ref: Reference, as: 'code' | 'text') => ScriptPiece,
): { ok: true; text: string } | { ok: false; error: ReferenceError } {
  const literals = refs.length ? scriptLiterals(text, runtime) : [];
  const edits: { start: number; end: number; text: string }[] = [];
  const inString = new Map<ScriptLiteral, { ref: Reference; text: string }[]>();
  for (const ref of refs) {
    const literal = literalAt(literals, ref.start);
    if (literal?.kind === 'comment') continue;
    const piece = resolve(ref, literal ? 'text' : 'code');
    if (!piece.ok) return piece;
    if ('splice' in piece) edits.push({ start: ref.start, end: ref.end, text: piece.splice });
    else if (!literal) edits.push({ start: ref.start, end: ref.end, text: piece.expression });
    else if (literal.kind === 'template') edits.push({ start: ref.start, end: ref.end, text: `\${${piece.expression}}` });
    else {
      const list = inString.get(literal) ?? [];
      list.push({ ref, text: piece.expression });
      inString.set(literal, list);
    }
  }
  for (const [literal, pieces] of inString) edits.push(rebuildString(text, literal, pieces, runtime, edits));
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let last = 0;
  for (const edit of edits) {
    out += text.slice(last, edit.start) + edit.text;
    last = edit.end;
  }
  return { ok: true, text: out + text.slice(last) };
}

/**
 * The string literal with its references as holes. `others` are the edits already planned (Cairn's
 * own spliced values), some of which may fall inside this literal: they are applied here and removed.
 */
function rebuildString(
  text: string,
  literal: ScriptLiteral,
  pieces: { ref: Reference; text: string }[],
  runtime: ScriptRuntime,
  others: { start: number; end: number; text: string }[],
): { start: number; end: number; text: string } {
  const closed = text.startsWith(literal.close, literal.end - literal.close.length) && literal.end - literal.close.length >= literal.start + literal.open.length;
  const contentStart = literal.start + literal.open.length;
  const contentEnd = closed ? literal.end - literal.close.length : literal.end;
  const inside = others.filter((e) => e.start >= contentStart && e.end <= contentEnd);
  for (const e of inside) others.splice(others.indexOf(e), 1);
  const cuts = [...pieces.map((p) => ({ start: p.ref.start, end: p.ref.end, value: p.text })), ...inside.map((e) => ({ start: e.start, end: e.end, splice: e.text }))].sort(
    (a, b) => a.start - b.start,
  );
  // The literal's text between cuts, with Cairn's own values written into it.
  const parts: string[] = [];
  const values: string[] = [];
  let current = '';
  let last = contentStart;
  for (const cut of cuts) {
    current += text.slice(last, cut.start);
    last = cut.end;
    if ('splice' in cut && cut.splice !== undefined) current += cut.splice;
    else {
      parts.push(current);
      values.push((cut as { value: string }).value);
      current = '';
    }
  }
  parts.push(current + text.slice(last, contentEnd));
  if (runtime === 'bun') {
    const escape = (part: string) => part.replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
    const body = parts.map((part, i) => escape(part) + (i < values.length ? `\${${values[i]}}` : '')).join('');
    return { start: literal.start, end: literal.end, text: `\`${body}\`` };
  }
  const open = literal.open;
  const close = literal.close;
  const joined = parts.map((part, i) => `${open}${part}${close}` + (i < values.length ? ` + ${values[i]} + ` : '')).join('');
  return { start: literal.start, end: literal.end, text: `(${joined})` };
}
