import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

/**
 * Validation reports everything it can check in one pass: reference, `when` and input errors
 * appear alongside structural errors (a broken node, an unknown dependency, a cycle), not only
 * once those are fixed.
 */

function errorsOf(definition: Record<string, unknown>): string[] {
  const result = validateWorkflowDefinition({ name: 'w', description: 'd', ...definition });
  return result.valid ? [] : result.errors;
}

describe('one pass', () => {
  it('checks references, when and inputs even when the graph has an unknown dependency and a node is broken', () => {
    expect(
      errorsOf({
        nodes: [
          { id: 'a', bash: 'x', depends_on: ['zz'] },
          { id: 'b', prompt: 'use $nope.output and $INPUTS.foo', when: '$a.output ==', depends_on: ['a'] },
          { id: 'c' },
        ],
      }),
    ).toEqual([
      "Node 'c': must have either 'command', 'prompt', 'bash', 'loop', 'loop_group', 'approval', 'cancel', 'script', 'include', 'workflow', 'wait', or 'github'",
      "Node 'a' depends_on unknown node 'zz'",
      "Node 'b' references unknown node '$nope.output'",
      "Node 'b' references undeclared input '$INPUTS.foo'",
      expect.stringMatching(/^Node 'b': invalid 'when' expression "\$a\.output =="/),
    ]);
  });

  it('checks references inside a cycle', () => {
    const errors = errorsOf({
      nodes: [
        { id: 'a', bash: 'x', depends_on: ['b'] },
        { id: 'b', prompt: '$INPUTS.x', depends_on: ['a'], when: 'bogus' },
      ],
    });
    expect(errors[0]).toBe('Cycle detected among nodes: a, b');
    expect(errors).toContain("Node 'b' references undeclared input '$INPUTS.x'");
    expect(errors.some((e) => e.startsWith("Node 'b': invalid 'when' expression \"bogus\""))).toBe(true);
  });

  it('checks the references of a node whose other fields are invalid', () => {
    expect(errorsOf({ nodes: [{ id: 'a', prompt: 'read $ghost.output', model: 5 }] })).toEqual([
      expect.stringMatching(/^Node 'a': 'model'/),
      "Node 'a' references unknown node '$ghost.output'",
    ]);
  });

  it('says a nodes: mapping must be a list, not that it is missing', () => {
    expect(errorsOf({ nodes: { a: { bash: 'x' } } })).toEqual([
      "'nodes:' must be a list of nodes (each item starting with '- id:'), not a mapping",
    ]);
    expect(errorsOf({})).toEqual(["Workflow must have 'nodes:' configuration"]);
  });
});
