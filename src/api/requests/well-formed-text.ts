import { CairnError } from '../../shared/errors.js';

/**
 * JSON may spell half of a surrogate pair on its own (`"\ud83d"`), and JavaScript keeps it as
 * a lone UTF-16 code unit. SQLite then stores it as bytes that are not UTF-8 (CESU), which other
 * SQLite clients and tools refuse to read, and a file or a process argument gets U+FFFD in its
 * place. No real text holds one, so a request body that does is refused with a 400 naming the
 * field, before anything is stored. With the `u` flag a well-formed pair is one code point, so
 * this matches lone halves only.
 */
const loneSurrogate = /\p{Surrogate}/u;

/** Throws a 400 naming the first string (a value or a key) in `value` that holds a lone surrogate. */
export function checkWellFormedText(value: unknown, what = 'Request body'): void {
  const found = findLoneSurrogate(value, []);
  if (!found) return;
  const field = fieldName(found.path, what);
  const unit = found.text.codePointAt(found.index)!.toString(16);
  throw new CairnError(
    'VALIDATION_FAILED',
    `${found.inKey ? `A key of ${field}` : field} holds a lone UTF-16 surrogate (\\u${unit} at character ${found.index}), ` +
      'which is not text: send well-formed Unicode (a surrogate escape must be half of a pair, as in \\ud83d\\ude00)',
  );
}

interface Found {
  path: (string | number)[];
  text: string;
  index: number;
  inKey: boolean;
}

function findLoneSurrogate(value: unknown, path: (string | number)[]): Found | undefined {
  if (typeof value === 'string') {
    const index = indexOfLoneSurrogate(value);
    return index === -1 ? undefined : { path, text: value, index, inKey: false };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findLoneSurrogate(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const index = indexOfLoneSurrogate(key);
    if (index !== -1) return { path, text: key, index, inKey: true };
    const found = findLoneSurrogate(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

function indexOfLoneSurrogate(text: string): number {
  return text.search(loneSurrogate);
}

/** The field as texts name it: `definition.nodes[0].prompt`, or under a form field's name (`inputs.who`). */
function fieldName(path: readonly (string | number)[], what: string): string {
  let name = what === 'Request body' ? '' : what;
  for (const part of path) {
    if (typeof part === 'number' || name === '') name = typeof part === 'number' ? `${name || what}[${part}]` : part;
    else name = `${name}.${part}`;
  }
  return name || 'the request body';
}
