import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { runConcurrencyOf } from '../../src/workflow/schema/concurrency.js';

const workflow = (concurrency: string) => `name: review-pr
description: d
inputs:
  pr: { required: true }
  repo: { default: "" }
concurrency: ${concurrency}
nodes:
  - id: a
    bash: echo hi
`;

function loaded(concurrency: string) {
  const result = loadWorkflowText(workflow(concurrency));
  if (!result.ok) throw new Error(result.error);
  return result.workflow;
}

describe("a workflow's concurrency: (docs/workflows.md, Concurrency)", () => {
  it('defaults to limit 1 and queue; the key reads inputs and the codebase, and puts their values in as they are', () => {
    const policy = loaded('{ key: "pr-$INPUTS.pr@$CODEBASE" }').concurrency!;
    expect(policy).toEqual({ key: 'pr-$INPUTS.pr@$CODEBASE', limit: 1, on_overlap: 'queue' });
    const hostile = `7'"; DROP TABLE workflow_runs; -- %_ $(touch x) ü 🚀`;
    expect(runConcurrencyOf('review-pr', policy, { inputs: { pr: hostile }, codebaseId: 'acme/api' })).toEqual({
      key: `pr-${hostile}@acme/api`, limit: 1, on_overlap: 'queue',
    });
  });

  it('a key that comes out empty, or none written, is the workflow name', () => {
    expect(runConcurrencyOf('review-pr', loaded('{ key: "$INPUTS.repo", limit: 2, on_overlap: refuse }').concurrency!, { inputs: { pr: '1', repo: ' ' }, codebaseId: null }))
      .toEqual({ key: 'review-pr', limit: 2, on_overlap: 'refuse' });
    expect(runConcurrencyOf('review-pr', loaded('{ on_overlap: cancel_other }').concurrency!, { inputs: { pr: '1' }, codebaseId: null }).key).toBe('review-pr');
  });

  it('refuses, when the workflow loads, a key reading an undeclared input or another variable, a bad limit or policy', () => {
    const errors = (concurrency: string) => {
      const result = loadWorkflowText(workflow(concurrency));
      return result.ok ? [] : result.errors;
    };
    expect(errors('{ key: "pr-$INPUTS.number" }')).toContainEqual(
      "'concurrency.key' reads $INPUTS.number, which is not an input of this workflow; declared inputs: pr, repo",
    );
    expect(errors('{ key: "pr-$ARGUMENTS" }')).toContainEqual("'concurrency.key' may read only $INPUTS.<name> and $CODEBASE; write a literal '$' nowhere else in it");
    expect(errors('{ limit: 0 }').join('\n')).toMatch(/concurrency\.limit/);
    expect(errors('{ on_overlap: skip }').join('\n')).toMatch(/concurrency\.on_overlap.*queue.*refuse.*cancel_other/);
  });
});
