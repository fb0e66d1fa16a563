/**
 * The types an input may declare (`inputs.<name>.type`) and what a value of each is. A value keeps
 * its type from the run request to every place that reads it: a `when:` compares it as its type,
 * a child run and a fan-out item receive it as it is. Where a body needs text (a shell's
 * environment, a prompt), `inputText` writes it: a string as it is, anything else as compact JSON.
 *
 * Values given as text (the CLI's `--input k=v`, a run request's `inputs`, a schedule, a webhook's
 * mapped payload) are converted by the declared type (`valueFromText`); values given as JSON (a
 * run request's `typedInputs`, a `workflow:` node's literal `with:` values, a fan-out item) are
 * checked as they are (`typeProblem`): `"3"` is not a number there.
 */

export const inputTypes = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type InputType = (typeof inputTypes)[number];

/** A run input's value: JSON, never null (the checks refuse it). Untyped inputs hold strings. The shape the store keeps (shared/input-value.ts). */
export type InputValue = string | number | boolean | unknown[] | { [key: string]: unknown };

/** What an input declares about its values. An input with no `type` holds a string. */
export interface InputTyping {
  type?: InputType | undefined;
  enum?: readonly string[] | undefined;
  items?: { type: InputType } | undefined;
}

/** Why `value` is not a value of the declared type ("expected number, got string \"3\""), or undefined. */
export function typeProblem(typing: InputTyping, value: unknown): string | undefined {
  const type = typing.type ?? 'string';
  if (!isOfType(type, value)) return `expected ${describeTyping(typing)}, got ${describeGiven(value)}`;
  if (typing.enum !== undefined && !typing.enum.includes(value as string)) {
    return `expected one of ${typing.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describeGiven(value)}`;
  }
  if (type === 'array' && typing.items !== undefined) {
    const items = value as unknown[];
    const bad = items.findIndex((item) => !isOfType(typing.items!.type, item));
    if (bad >= 0) return `expected an array of ${typing.items.type} items, but item ${bad} is ${describeGiven(items[bad])}`;
  }
  return undefined;
}

/** A value given as text, converted to the declared type, or why it cannot be. */
export function valueFromText(typing: InputTyping, text: string): { ok: true; value: InputValue } | { ok: false; problem: string } {
  const type = typing.type ?? 'string';
  let value: unknown = text;
  if (type === 'number' || type === 'integer') value = text.trim() === '' ? text : Number(text);
  else if (type === 'boolean') value = text === 'true' ? true : text === 'false' ? false : text;
  else if (type === 'array' || type === 'object') value = parseJson(text);
  const problem = typeProblem(typing, value);
  if (problem === undefined) return { ok: true, value: value as InputValue };
  return { ok: false, problem: `expected ${describeTyping(typing)}, got the text ${JSON.stringify(clip(text))}${textHint(type)}` };
}

/** A value where text is needed (a body's environment, a prompt, a key): a string as it is, else compact JSON. */
export function inputText(value: InputValue | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isOfType(type: InputType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value) && !containsNull(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) && !containsNull(value);
  }
}

function containsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  return Object.values(value).some(containsNull);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describeTyping(typing: InputTyping): string {
  const type = typing.type ?? 'string';
  const article = type === 'integer' || type === 'array' || type === 'object' ? 'an' : 'a';
  return `${article} ${type}`;
}

function describeGiven(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return containsNull(value) ? 'an array holding null' : 'an array';
  if (typeof value === 'object') return containsNull(value) ? 'an object holding null' : 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(clip(value))}`;
  return `${typeof value} ${String(value)}`;
}

function textHint(type: InputType): string {
  if (type === 'boolean') return ' (write true or false)';
  if (type === 'array') return ' (write a JSON array, e.g. ["a","b"])';
  if (type === 'object') return ' (write a JSON object, e.g. {"a":1})';
  return '';
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
