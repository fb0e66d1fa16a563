import { assignmentParts, elementParts } from './assignment.js';
import type { DeclaredNames, ShellWord, Span } from './types.js';

/**
 * Which parts of a simple command's words bash evaluates as arithmetic or reads as a variable
 * name, from the command and its options: `let` arguments; `[[ a -gt b ]]` operands (and `-eq`,
 * `-ne`, `-lt`, `-le`, `-ge`); the values of `declare -i` (`local -i`, `typeset -i`) names, there
 * and in later assignments; array subscripts in assignments; the names given to `read`, `unset`,
 * `printf -v`, `declare`..., `[[ -v ]]`/`test -v`, whose subscripts are arithmetic too. Bash's
 * own arithmetic (`$((…))`, `((…))`, `${v:off:len}`, `${a[i]}`) the lexer finds as it reads.
 */

export interface Role {
  kind: 'arith' | 'name';
  where: string;
}

/** A role for the part [from, to) of a word. */
export interface RoleMark {
  word: ShellWord;
  from: number;
  to: number;
  role: Role;
}

const arith = (where: string): Role => ({ kind: 'arith', where });
const name = (where: string): Role => ({ kind: 'name', where });
const whole = (word: ShellWord, role: Role): RoleMark => ({ word, from: word.start, to: word.end, role });
const part = (word: ShellWord, span: Span, role: Role): RoleMark => ({ word, from: span.start, to: span.end, role });

const subscriptRole = arith('an array subscript');
const comparisons = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const declarations = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
/** `read` options that take a value (the next word when nothing follows the letter). */
const readOptionsWithValue = 'adinNptu';

/** The roles in one simple command; records the names it declares `-i` or `-A` in `names`. */
export function commandRoles(words: readonly ShellWord[], text: string, names: DeclaredNames): RoleMark[] {
  const marks: RoleMark[] = [];
  let i = 0;
  for (; i < words.length; i++) {
    if (!assignmentRoles(words[i]!, text, names, new Set(), marks)) break;
  }
  while (words[i]?.literal === 'command' || words[i]?.literal === 'builtin') i++;
  const command = words[i]?.literal;
  const args = words.slice(i + 1);
  if (command === 'let') marks.push(...args.map((w) => whole(w, arith('a let argument'))));
  else if (command !== undefined && declarations.has(command)) declarationRoles(command, args, text, names, marks);
  else if (command === 'unset') {
    for (const w of args) if (!w.literal?.startsWith('-')) nameRoles(w, text, 'unset', marks);
  } else if (command === 'read') readRoles(args, text, marks);
  else if (command === 'printf' && args[0]?.literal === '-v' && args[1]) nameRoles(args[1], text, 'printf -v', marks);
  else if (command === 'test' || command === '[' || command === '[[') testRoles(command, args, text, marks);
  return marks;
}

/** Marks an assignment word's subscript and (for `-i` names) value; false when the word is no assignment. */
function assignmentRoles(
  word: ShellWord,
  text: string,
  names: DeclaredNames,
  flags: ReadonlySet<string>,
  marks: RoleMark[],
  command?: string,
): boolean {
  const parts = assignmentParts(word, text);
  if (!parts) return false;
  const assoc = flags.has('A') || names.assoc.has(parts.name);
  const integer = flags.has('i') || names.integer.has(parts.name);
  if (parts.subscript && !assoc) marks.push(part(word, parts.subscript, subscriptRole));
  const valueRole = arith(flags.has('i') ? `${command ?? 'declare'} -i` : `an assignment to ${parts.name}, declared -i`);
  if (word.elements) {
    for (const element of word.elements) {
      const el = elementParts(element, text);
      if (el && !assoc) marks.push(part(element, el.subscript, subscriptRole));
      if (integer) marks.push(el ? part(element, el.value, valueRole) : whole(element, valueRole));
    }
  } else if (integer) {
    marks.push(part(word, parts.value, valueRole));
  } else if (flags.has('n')) {
    marks.push(part(word, parts.value, name(`${command ?? 'declare'} -n`)));
  }
  return true;
}

function declarationRoles(command: string, args: readonly ShellWord[], text: string, names: DeclaredNames, marks: RoleMark[]): void {
  const flags = new Set<string>();
  // Only declare, typeset and local take -i (integer), -A (associative) and -n (name reference); export -n unexports.
  const attributes = command === 'declare' || command === 'typeset' || command === 'local';
  for (const word of args) {
    const literal = word.literal;
    if (literal !== undefined && /^[-+][A-Za-z]/.test(literal) && !literal.includes('=')) {
      if (literal.startsWith('-') && attributes) for (const f of literal.slice(1)) flags.add(f);
      continue;
    }
    const parts = assignmentParts(word, text);
    const declared = parts?.name ?? (literal !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(literal) ? literal : undefined);
    if (declared !== undefined && flags.has('i')) names.integer.add(declared);
    if (declared !== undefined && flags.has('A')) names.assoc.add(declared);
    if (assignmentRoles(word, text, names, flags, marks, command)) continue;
    // A name bash only knows once the word is expanded (`declare "$x=1"`): the part before `=` is a name.
    const eq = text.slice(word.start, word.end).indexOf('=');
    const nameEnd = eq === -1 ? word.end : word.start + eq;
    nameRoles({ ...word, end: nameEnd }, text, command, marks, word);
    if (nameEnd < word.end && (flags.has('i') || flags.has('n'))) {
      marks.push(part(word, { start: nameEnd + 1, end: word.end }, flags.has('i') ? arith(`${command} -i`) : name(`${command} -n`)));
    }
  }
}

function readRoles(args: readonly ShellWord[], text: string, marks: RoleMark[]): void {
  for (let k = 0; k < args.length; k++) {
    const literal = args[k]!.literal;
    if (literal === undefined || !literal.startsWith('-') || literal.length < 2) {
      nameRoles(args[k]!, text, 'read', marks);
      continue;
    }
    const letters = literal.slice(1);
    const j = [...letters].findIndex((l) => readOptionsWithValue.includes(l));
    if (j === -1 || j < letters.length - 1) continue;
    k++;
    if (letters[j] === 'a' && args[k]) nameRoles(args[k]!, text, 'read -a', marks);
  }
}

function testRoles(command: string, args: readonly ShellWord[], text: string, marks: RoleMark[]): void {
  args.forEach((word, k) => {
    const literal = word.literal;
    const next = args[k + 1];
    if ((literal === '-v' || literal === '-R') && next) nameRoles(next, text, `${command} ${literal}`, marks);
    if (command !== '[[' || literal === undefined || !comparisons.has(literal)) return;
    const role = arith(`[[ … ${literal} … ]]`);
    const before = args[k - 1];
    if (before) marks.push(whole(before, role));
    if (next && next.literal !== ']]') marks.push(whole(next, role));
  });
}

/** A word bash reads as a variable name: up to its first `[` the name, after it the subscript. */
function nameRoles(span: ShellWord, text: string, where: string, marks: RoleMark[], word: ShellWord = span): void {
  const bracket = text.slice(span.start, span.end).indexOf('[');
  const split = bracket === -1 ? span.end : span.start + bracket;
  marks.push(part(word, { start: span.start, end: split }, name(where)));
  if (split < span.end) marks.push(part(word, { start: split + 1, end: span.end }, subscriptRole));
}
