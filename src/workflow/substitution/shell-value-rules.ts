/**
 * What a value must be where bash evaluates it (arithmetic) or reads it as a variable name, and
 * the texts that say so when a node fails, before it runs.
 */

export const INTEGER_RULE = 'a decimal integer (digits, an optional leading -, no leading 0, within 64 bits)';
export const NAME_RULE = 'a plain name (letters, digits and _, not starting with a digit)';

/** A decimal integer bash reads as the same number: no `0x`, no leading zero (octal), no overflow. */
export function isShellInteger(text: string): boolean {
  if (!/^-?(?:0|[1-9][0-9]{0,18})$/.test(text)) return false;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

export function isShellName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);
}

/** The line (1-based) of `offset` in `text`. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Where a reference stands, for messages: the script's own line, not the workflow file's. */
export function onLine(line: number): string {
  return `on line ${line} of the script`;
}

/** How to accept other values: check a copy, then use the copy. */
export function checkFirstHint(written: string): string {
  return `Check the value first, e.g. n=${written}; [[ $n =~ ^-?[0-9]+$ ]] || exit 1, then use $n there.`;
}

export function arithmeticValueError(written: string, line: number, where: string): string {
  return (
    `${written} ${onLine(line)} is in ${where}, where bash evaluates it as arithmetic, and its value is not ` +
    `${INTEGER_RULE}; arithmetic runs commands hidden in a value (a[$(…)]), so the node did not run. ${checkFirstHint(written)}`
  );
}

export function nameValueError(written: string, line: number, where: string): string {
  return (
    `${written} ${onLine(line)} is where bash reads a variable name (${where}), and its value is not ${NAME_RULE}; ` +
    'bash evaluates a subscript in a name as arithmetic, which runs commands hidden in a value, so the node did not run.'
  );
}

export function arithmeticVariableError(name: string, line: number, where: string): string {
  return (
    `${name} ${onLine(line)} is read as a variable in ${where}, so bash evaluates its value as arithmetic, and the value ` +
    `is not ${INTEGER_RULE} or empty; arithmetic runs commands hidden in a value, so the node did not run. ${checkFirstHint(`$${name}`)}`
  );
}
