import { describe, expect, it } from 'vitest';
import { nodeDescriptorSchema } from '../../src/records/schemas/node-descriptor.js';
import { describeNode } from '../../src/workflow/schema/describe-node.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

describe('describeNode', () => {
  it("maps every node mode to the contract's record kind and extras", () => {
    const result = validateWorkflowDefinition({
      name: 'every-kind',
      description: 'one node of each mode',
      nodes: [
        { id: 'inline', prompt: 'hi' },
        { id: 'cmd', command: 'cairn-plan' },
        { id: 'sh', bash: 'echo' },
        { id: 'ts', script: 'console.log(1)', runtime: 'bun' },
        { id: 'py', script: 'print(1)', runtime: 'uv' },
        { id: 'lp', loop: { prompt: 'again', max_iterations: 2, until: 'DONE' } },
        { id: 'lpc', loop: { command: 'cairn-implement', max_iterations: 2, until: 'DONE' } },
        { id: 'grp', loop_group: { max_iterations: 2, until_bash: 'true', nodes: [{ id: 'tick', bash: 'echo' }] } },
        { id: 'gate', approval: { message: 'ok?' } },
        { id: 'stop', cancel: 'nothing to do' },
        { id: 'pause', wait: { duration_ms: 60_000 } },
        { id: 'child', workflow: 'other' },
        { id: 'fan', workflow: 'other', fan_out: { items: '["a","b"]' } },
      ],
    });
    if (!result.valid) throw new Error(result.errors.join('; '));
    const descriptors = result.workflow.nodes.map(describeNode);
    expect(descriptors).toEqual([
      { id: 'inline', kind: 'agent', source: { kind: 'inline' } },
      { id: 'cmd', kind: 'agent', source: { kind: 'command', name: 'cairn-plan' } },
      { id: 'sh', kind: 'exec', runtime: 'sh' },
      { id: 'ts', kind: 'exec', runtime: 'bun' },
      { id: 'py', kind: 'exec', runtime: 'uv' },
      { id: 'lp', kind: 'loop' },
      { id: 'lpc', kind: 'loop', command: 'cairn-implement' },
      { id: 'grp', kind: 'loop_group' },
      { id: 'gate', kind: 'gate' },
      { id: 'stop', kind: 'halt' },
      { id: 'pause', kind: 'wait' },
      { id: 'child', kind: 'workflow' },
      { id: 'fan', kind: 'workflow', fanOut: true },
    ]);
    for (const descriptor of descriptors) expect(nodeDescriptorSchema.parse(descriptor)).toEqual(descriptor);
  });
});

describe('the wait node', () => {
  it('takes exactly one of duration_ms or an ISO-8601 until', () => {
    const check = (wait: unknown) => validateWorkflowDefinition({ name: 'w', description: 'd', nodes: [{ id: 'w', wait }] });
    expect(check({ duration_ms: 5000 }).valid).toBe(true);
    expect(check({ until: '2030-01-01T09:00:00Z', message: 'after the freeze' }).valid).toBe(true);
    expect(check({})).toMatchObject({ valid: false, errors: ["Node 'w': wait needs exactly one of 'wait.duration_ms' or 'wait.until'"] });
    expect(check({ duration_ms: 1, until: '2030-01-01T09:00:00Z' }).valid).toBe(false);
    expect(check({ until: 'next tuesday' })).toMatchObject({
      valid: false,
      errors: ["Node 'w': 'wait.until' must be an ISO-8601 timestamp (e.g. 2030-01-01T09:00:00Z), got 'next tuesday'"],
    });
  });

  it('accepts an until read from an upstream node', () => {
    const result = validateWorkflowDefinition({
      name: 'w',
      description: 'd',
      nodes: [
        { id: 'when', bash: 'date -u -d tomorrow +%FT%TZ' },
        { id: 'hold', depends_on: ['when'], wait: { until: '$when.output' } },
      ],
    });
    expect(result.valid).toBe(true);
  });
});
