import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

/**
 * A typo in a key would silently change the graph (`depend_on: [build]` drops the dependency, and
 * deploy runs before build). An unknown key that looks like a known one, by edit distance or case,
 * is an error with "did you mean"; an unknown key that resembles nothing stays a warning.
 */

function check(definition: Record<string, unknown>) {
  return validateWorkflowDefinition({ name: 'w', description: 'd', ...definition });
}
const errorsOf = (definition: Record<string, unknown>) => {
  const result = check(definition);
  return result.valid ? [] : result.errors;
};

describe('unknown keys that look like known keys', () => {
  it('refuses depend_on with a hint, instead of running deploy before build', () => {
    expect(
      errorsOf({ nodes: [{ id: 'build', bash: 'make' }, { id: 'deploy', bash: 'ship', depend_on: ['build'] }] }),
    ).toEqual(["Node 'deploy': unknown key 'depend_on' (did you mean 'depends_on'?)"]);
  });

  it('refuses a key that differs only in case', () => {
    expect(errorsOf({ nodes: [{ id: 'a', bash: 'x' }, { id: 'b', bash: 'y', Depends_On: ['a'] }] })).toEqual([
      "Node 'b': unknown key 'Depends_On' (did you mean 'depends_on'?)",
    ]);
  });

  it('prefers the keys of the node’s own mode', () => {
    expect(errorsOf({ nodes: [{ id: 'a', bash: 'x', timout: 5 }] })).toEqual([
      "Node 'a': unknown key 'timout' (did you mean 'timeout'?)",
    ]);
  });

  it('refuses near-misses at the top level and nested', () => {
    expect(
      errorsOf({
        Inputs: { x: { default: '1' } },
        nodes: [{ id: 'a', bash: 'x', retry: { max_atempts: 2 } }],
      }),
    ).toEqual([
      "Workflow 'w': unknown key 'Inputs' (did you mean 'inputs'?)",
      "Node 'a': unknown key 'retry.max_atempts' (did you mean 'max_attempts'?)",
      "Node 'a': 'retry.max_attempts' is required",
    ]);
  });

  it('keeps an unknown key that resembles no known key a warning', () => {
    const result = check({ owner_team: 'infra', nodes: [{ id: 'a', bash: 'x', reviewer_notes: 'n' }] });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      "Workflow 'w': unknown key 'owner_team' will be ignored.",
      "Node 'a': unknown key 'reviewer_notes' will be ignored.",
    ]);
  });
});

describe('references to unknown nodes get the same hint', () => {
  it('hints at the closest id for an unknown depends_on entry', () => {
    expect(errorsOf({ nodes: [{ id: 'build', bash: 'x' }, { id: 'deploy', bash: 'y', depends_on: ['biuld'] }] })).toEqual([
      "Node 'deploy' depends_on unknown node 'biuld' (did you mean 'build'?)",
    ]);
  });
});
