import type { QuotedHeredoc } from './shell-context.js';

/**
 * A quoted heredoc (`<<'EOF'`) expands nothing, so a value cannot reach it through a variable.
 * Rather than splice the value's text in (a line of it could end the heredoc: `EOF`, or inside
 * `$(…)` any line that starts with `EOF` and has a `)`, and the rest would run), the heredoc is
 * rewritten as an unquoted one that reads the same: the delimiter word unquoted, and every `\`,
 * `$` and backtick of its own text escaped; the references in it become `${V}`, expanded once.
 */

export interface Edit {
  start: number;
  end: number;
  text: string;
}

const plainDelimiter = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export type HeredocRewrite = { ok: true; edits: Edit[] } | { ok: false; reason: string };

/** The edits that unquote `doc`, leaving the spans of `refs` (its references) to the caller. */
export function unquoteHeredoc(text: string, doc: QuotedHeredoc, refs: readonly { start: number; end: number }[]): HeredocRewrite {
  if (doc.inBackticks) {
    return {
      ok: false,
      reason: 'inside backticks (where bash removes a level of backslashes first), which Cairn cannot rewrite to pass the value; use $(…) instead of backticks',
    };
  }
  if (!plainDelimiter.test(doc.delimiter)) {
    return { ok: false, reason: 'whose delimiter Cairn cannot write unquoted to pass the value; use a delimiter of letters, digits, _, . and -' };
  }
  const edits: Edit[] = [{ start: doc.word.start, end: doc.word.end, text: doc.delimiter }];
  let from = doc.body.start;
  for (const ref of [...refs].sort((a, b) => a.start - b.start)) {
    edits.push(...escaped(text, from, ref.start));
    from = ref.end;
  }
  edits.push(...escaped(text, from, doc.body.end));
  return { ok: true, edits };
}

function escaped(text: string, start: number, end: number): Edit[] {
  const piece = text.slice(start, end);
  const out = piece.replace(/[\\$`]/g, '\\$&');
  return out === piece ? [] : [{ start, end, text: out }];
}

/** `text` with `edits` (which do not overlap) applied. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = '';
  let last = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    out += text.slice(last, edit.start) + edit.text;
    last = edit.end;
  }
  return out + text.slice(last);
}
