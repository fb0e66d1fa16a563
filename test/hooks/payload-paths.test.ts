import { describe, expect, it } from 'vitest';
import { inputsFromPayload } from '../../src/hooks/payload-inputs.js';
import { parsePayloadPath, readPayloadPath } from '../../src/hooks/payload-paths.js';

/** The path subset docs/webhooks.md ("Input mapping") promises: `$`, `.name` and `[n]`, nothing else. */

const payload = {
  pull_request: { number: 42, draft: false, head: { ref: 'feature/x' }, labels: [{ name: 'bug' }] },
  commits: [{ id: 'c0' }, { id: 'c1' }],
  'kebab-key': 'k',
  nothing: null,
};
const read = (path: string) => {
  const steps = parsePayloadPath(path);
  if (typeof steps === 'string') throw new Error(steps);
  return readPayloadPath(payload, steps);
};

describe('payload paths', () => {
  it('reads keys and array items', () => {
    expect(read('$.pull_request.number')).toBe(42);
    expect(read('$.pull_request.head.ref')).toBe('feature/x');
    expect(read('$.pull_request.labels[0].name')).toBe('bug');
    expect(read('$.commits[1].id')).toBe('c1');
    expect(read('$.kebab-key')).toBe('k');
    expect(read('$')).toEqual(payload);
  });

  it('finds nothing past the end of an array, in a missing key, through a value or an inherited key', () => {
    for (const path of ['$.commits[2].id', '$.pull_request.nope', '$.pull_request.number.x', '$.commits.id', '$.pull_request[0]', '$.constructor', '$.toString']) {
      expect(read(path), path).toBeUndefined();
    }
  });

  it('refuses every other form, saying where', () => {
    expect(parsePayloadPath('pull_request.number')).toMatch(/must start with '\$'/);
    for (const [path, rest] of [
      ['$.commits[*].id', '[*].id'], ['$..id', '..id'], ["$['a.b']", "['a.b']"], ['$.commits[-1]', '[-1]'], ['$.commits[0:2]', '[0:2]'],
      ['$.a b', ' b'], ['$.', '.'], ['$a', 'a'],
    ] as const) {
      expect(parsePayloadPath(path), path).toBe(
        `path '${path}' is not supported at '${rest}': use .name (letters, digits, _ and -) and [n] steps only, e.g. $.commits[0].id`,
      );
    }
  });
});

describe('inputs from a payload', () => {
  it('takes strings as they are, numbers and booleans as their JSON text, and leaves out what is missing or null', () => {
    expect(inputsFromPayload({ pr: '$.pull_request.number', draft: '$.pull_request.draft', ref: '$.pull_request.head.ref', gone: '$.nope', empty: '$.nothing' }, payload))
      .toEqual({ pr: '42', draft: 'false', ref: 'feature/x' });
  });

  it('refuses an object or an array, naming the input and the path', () => {
    expect(() => inputsFromPayload({ head: '$.pull_request.head' }, payload)).toThrow(
      "Input 'head' maps to $.pull_request.head, which is an object in the payload; map it to a string, number or boolean inside it",
    );
    expect(() => inputsFromPayload({ commits: '$.commits' }, payload)).toThrow(/Input 'commits' maps to \$.commits, which is an array/);
  });
});
