import type { z } from 'zod';

/**
 * Turns a zod issue into a sentence that names the field, e.g.
 * `'retry.max_attempts' must be at most 5` — the text a workflow author reads.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = formatPath(issue.path);
  const custom = !/^(Invalid|Too (small|big))/.test(issue.message);
  if (custom) {
    const lastKey = [...issue.path].reverse().find((p) => typeof p === 'string');
    const named = path === '' || (typeof lastKey === 'string' && issue.message.includes(lastKey));
    return named ? issue.message : `'${path}' ${issue.message}`;
  }
  const subject = path === '' ? 'value' : `'${path}'`;
  switch (issue.code) {
    case 'invalid_type': {
      const received = /received (\w+)/.exec(issue.message)?.[1];
      if (received === 'undefined') return `${subject} is required`;
      return `${subject} must be ${withArticle(issue.expected)}${received ? `, not ${withArticle(received)}` : ''}`;
    }
    case 'invalid_value':
      return `${subject} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${subject} must not be empty`;
      if (issue.origin === 'array') return `${subject} must have at least ${String(issue.minimum)} item(s)`;
      return `${subject} must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `${subject} must have at most ${String(issue.maximum)} item(s)`;
      return `${subject} must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`;
    case 'invalid_format':
      return `${subject} has an invalid format`;
    case 'not_multiple_of':
      return `${subject} must be a whole number`;
    default:
      return `${subject} is invalid`;
  }
}

/** `['approval', 'decisions', 0, 'id']` → `approval.decisions[0].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

/** The type of a parsed value as `describeIssue` names one: `a number`, `a list`, `a mapping` ... */
export function describeValueType(value: unknown): string {
  return withArticle(Array.isArray(value) ? 'array' : typeof value);
}

function withArticle(type: string): string {
  if (type === 'array') return 'a list';
  if (type === 'object') return 'a mapping';
  if (type === 'int') return 'an integer';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
