/**
 * The operator after the parameter of `${…}`, and how its text is read:
 *   end        `}`
 *   substring  `:offset[:length]`, both arithmetic
 *   word       `:-` `-` `:=` `=` `:?` `?` `:+` `+`, `@Q`-style transforms, anything unknown
 *   pattern    `#` `##` `%` `%%` `^` `^^` `,` `,,`
 *   replace    `/` `//` `/#` `/%`: a pattern, then `/` and a replacement
 */
export type BraceOperator = { kind: 'end' | 'substring' | 'word' | 'pattern' | 'replace'; length: number };

export function braceOperator(text: string, at: number, limit: number): BraceOperator {
  const c = at < limit ? text[at] : undefined;
  const next = at + 1 < limit ? text[at + 1] : undefined;
  if (c === undefined || c === '}') return { kind: 'end', length: 0 };
  if (c === ':') return next !== undefined && '-=?+'.includes(next) ? { kind: 'word', length: 2 } : { kind: 'substring', length: 1 };
  if ('-=?+'.includes(c)) return { kind: 'word', length: 1 };
  if ('#%^,'.includes(c)) return { kind: 'pattern', length: next === c ? 2 : 1 };
  if (c === '/') return { kind: 'replace', length: next !== undefined && '/#%'.includes(next) ? 2 : 1 };
  if (c === '@') return { kind: 'word', length: next === undefined ? 1 : 2 };
  return { kind: 'word', length: 0 };
}
