import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import {
  assertNodeId,
  instancePath,
  isValidNodePath,
  isWithinAnyScope,
  isWithinScope,
  nodePath,
  parentPath,
  parseNodePath,
} from '../../src/records/node-path.js';

describe('node paths', () => {
  it('composes top-level, loop group, fan-out instance and child paths', () => {
    expect(nodePath('build')).toBe('build');
    expect(nodePath('test', 'fix')).toBe('fix/test');
    const instance = instancePath('review', 2);
    expect(instance).toBe('review[2]');
    expect(nodePath('lint', instance)).toBe('review[2]/lint');
    expect(parseNodePath('review[2]/lint')).toEqual([{ id: 'review', ordinal: 2 }, { id: 'lint' }]);
  });

  it('accepts the ids workflows use, including include-expanded ones', () => {
    for (const id of ['a', 'build-app', 'run_tests', 'inc__step', 'step.2']) expect(isValidNodePath(nodePath(id))).toBe(true);
  });

  it('refuses node ids that would make a path ambiguous', () => {
    for (const id of ['', 'a/b', 'a[1]', 'x]']) expect(() => assertNodeId(id)).toThrow(CairnError);
    expect(() => instancePath('review', -1)).toThrow(CairnError);
    for (const path of ['', 'a//b', '/a', 'a[01]', 'a[x]', 'a[1]b']) expect(isValidNodePath(path)).toBe(false);
  });

  it('tells whether a path lies inside a scope', () => {
    expect(isWithinScope('review[2]/lint', 'review[2]')).toBe(true);
    expect(isWithinScope('review[2]/a/b', 'review[2]')).toBe(true);
    expect(isWithinScope('review[2]', 'review[2]')).toBe(false);
    expect(isWithinScope('review[20]/lint', 'review[2]')).toBe(false);
    expect(isWithinScope('fixed/test', 'fix')).toBe(false);
    expect(parentPath('review[2]/lint')).toBe('review[2]');
    expect(parentPath('build')).toBeUndefined();
  });

  it('tells whether a path lies inside any of many scopes, as isWithinScope over each would', () => {
    const scopes = new Set(['review[2]', 'each[7]/inner[0]']);
    expect(isWithinAnyScope('review[2]/lint', scopes)).toBe(true);
    expect(isWithinAnyScope('each[7]/inner[0]/x', scopes)).toBe(true);
    expect(isWithinAnyScope('each[7]/inner[0]', scopes)).toBe(false);
    expect(isWithinAnyScope('review[20]/lint', scopes)).toBe(false);
    expect(isWithinAnyScope('each[7]/x', scopes)).toBe(false);
    // Any strings, separators anywhere (leading, doubled, trailing): the same answer as the plain check.
    const segment = fc.constantFrom('a', 'b', 'x[1]', '', 'a[0]');
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(path, fc.array(path, { maxLength: 6 }), (p, list) => {
        expect(isWithinAnyScope(p, new Set(list))).toBe(list.some((scope) => isWithinScope(p, scope)));
      }),
      { numRuns: 2000 },
    );
  });
});
