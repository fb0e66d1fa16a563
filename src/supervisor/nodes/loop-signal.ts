/**
 * A loop's completion signal (`until:`), as upstream reads it: the output holds
 * `<promise>SIGNAL</promise>` (any case, whitespace around the signal ignored), or its last
 * non-empty line is the signal itself. `<promise>` tags are removed from the output a loop
 * passes on.
 */

const PROMISE = /<promise>\s*([\s\S]*?)\s*<\/promise>/gi;

export function hasSignal(output: string, signal: string): boolean {
  const wanted = signal.trim().toLowerCase();
  for (const match of output.matchAll(PROMISE)) {
    if (match[1]!.toLowerCase() === wanted) return true;
  }
  const lines = output.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
  return lines.at(-1)?.toLowerCase() === wanted;
}

/** The output without its `<promise>` tags (their text stays). */
export function stripPromiseTags(output: string): string {
  return output.replace(/<\/?promise>/gi, '');
}
