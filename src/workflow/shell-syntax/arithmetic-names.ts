import type { ArithmeticSpan } from './types.js';

/**
 * The names bash reads as variables inside arithmetic (`(( COUNT > 1 ))`, `let n=COUNT`,
 * `[[ COUNT -gt 1 ]]`): bash evaluates such a variable's value as arithmetic too. Not `$name` or
 * `${name}` (those are expansions), nor the field of a reference (`$m.output`). A name in a
 * command substitution inside the arithmetic is reported as well: the check errs on the safe side.
 */
export function namesInArithmetic(text: string, spans: readonly ArithmeticSpan[]): { name: string; at: number; where: string }[] {
  const found = new Map<string, { name: string; at: number; where: string }>();
  for (const span of spans) {
    for (const m of text.slice(span.start, span.end).matchAll(/(?<![\w$#!{.])[A-Za-z_][A-Za-z0-9_]*/g)) {
      const at = span.start + m.index;
      const seen = found.get(m[0]);
      if (!seen || at < seen.at) found.set(m[0], { name: m[0], at, where: span.where });
    }
  }
  return [...found.values()].sort((a, b) => a.at - b.at);
}
