import { describe, expect, it } from 'vitest';
import { parseDraft } from '../../src/workflow/loading/parse-draft.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';
import type { WorkflowDefinitionDraft } from '../../src/workflow/schema/workflow-schema.js';

function draft(definition: Record<string, unknown>): WorkflowDefinitionDraft {
  const parsed = parseDraft(definition);
  if (!parsed.draft) throw new Error(parsed.errors.join('; '));
  return parsed.draft;
}

const reviewBlock = draft({
  name: 'review-block',
  description: 'shared review steps',
  nodes: [
    { id: 'scope', bash: 'git diff --stat' },
    { id: 'code', depends_on: ['scope'], prompt: 'Review: $scope.output' },
    { id: 'tests', depends_on: ['scope'], prompt: 'Tests for $scope.output' },
    { id: 'merge', depends_on: ['code', 'tests'], trigger_rule: 'one_success', when: "$code.output != ''", prompt: 'Merge $code.output' },
  ],
});

describe('include expansion', () => {
  it('inlines the block with renamed ids, rewired edges and renamed references', () => {
    const result = validateWorkflowDefinition(
      {
        name: 'idea-to-pr',
        description: 'd',
        nodes: [
          { id: 'build', bash: 'make' },
          { id: 'review', include: 'review-block', depends_on: ['build'], trigger_rule: 'all_done' },
          { id: 'summary', depends_on: ['review'], prompt: 'Summarise $review.output', when: "$review.output != ''" },
        ],
      },
      { resolveInclude: (name) => (name === 'review-block' ? reviewBlock : undefined) },
    );
    if (!result.valid) throw new Error(result.errors.join('; '));
    expect(result.workflow.nodes).toEqual([
      { id: 'build', bash: 'make' },
      { id: 'review__scope', bash: 'git diff --stat', depends_on: ['build'], trigger_rule: 'all_done' },
      { id: 'review__code', depends_on: ['review__scope'], prompt: 'Review: $review__scope.output' },
      { id: 'review__tests', depends_on: ['review__scope'], prompt: 'Tests for $review__scope.output' },
      {
        id: 'review__merge',
        depends_on: ['review__code', 'review__tests'],
        trigger_rule: 'one_success',
        when: "$review__code.output != ''",
        prompt: 'Merge $review__code.output',
      },
      { id: 'summary', depends_on: ['review__merge'], prompt: 'Summarise $review__merge.output', when: "$review__merge.output != ''" },
    ]);
  });

  it("reads the block's returns: node as the include's output and waits for every sink", () => {
    const block = draft({
      name: 'two-sinks',
      description: 'd',
      returns: 'a',
      nodes: [
        { id: 'a', bash: 'echo a' },
        { id: 'b', bash: 'echo b' },
      ],
    });
    const result = validateWorkflowDefinition(
      { name: 'p', description: 'd', nodes: [{ id: 'inc', include: 'two-sinks' }, { id: 'next', depends_on: ['inc'], bash: 'echo $inc.output' }] },
      { resolveInclude: () => block },
    );
    expect(result.valid && result.workflow.nodes.at(-1)).toEqual({ id: 'next', depends_on: ['inc__a', 'inc__b'], bash: 'echo $inc__a.output' });
  });

  it('reports an include that cannot be resolved, and include cycles', () => {
    const unresolved = validateWorkflowDefinition({ name: 'p', description: 'd', nodes: [{ id: 'x', include: 'missing' }] });
    expect(!unresolved.valid && unresolved.errors).toEqual([
      "Node 'x': include 'missing' cannot be resolved (no loadable workflow named 'missing')",
    ]);
    const a = draft({ name: 'a', description: 'd', nodes: [{ id: 'to-b', include: 'b' }] });
    const b = draft({ name: 'b', description: 'd', nodes: [{ id: 'to-a', include: 'a' }] });
    const cyclic = validateWorkflowDefinition(
      { name: 'a', description: 'd', nodes: [{ id: 'to-b', include: 'b' }] },
      { resolveInclude: (n) => ({ a, b })[n] },
    );
    expect(!cyclic.valid && cyclic.errors).toEqual(["Node 'to-b' (include 'b'): Node 'to-a': include cycle: a → b → a"]);
  });

  it('refuses a with: key a block that declares inputs does not declare, instead of dropping it', () => {
    const declared = { ...reviewBlock, inputs: { depth: { default: '1' } } };
    const result = validateWorkflowDefinition(
      { name: 'p', description: 'd', nodes: [{ id: 'x', include: 'review-block', with: { a: 1 } }] },
      { resolveInclude: () => declared },
    );
    expect(!result.valid && result.errors).toEqual([
      "Node 'x' (include 'review-block'): with: 'a' is not an input of 'review-block'. It declares: depth.",
    ]);
  });

  it('gives a block that declares no inputs: its with: values, as the upstream does (a passthrough)', () => {
    const result = validateWorkflowDefinition(
      { name: 'p', description: 'd', nodes: [{ id: 'x', include: 'review-block', with: { a: 1 } }] },
      { resolveInclude: () => reviewBlock },
    );
    expect(result.valid).toBe(true);
  });
});
