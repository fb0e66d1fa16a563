import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

function warningsOf(definition: Record<string, unknown>): string[] {
  const result = validateWorkflowDefinition({ name: 'w', description: 'd', ...definition });
  if (!result.valid) throw new Error(result.errors.join('\n'));
  return result.warnings;
}

describe('parse warnings for keys the engine ignores', () => {
  it('has none for a clean workflow', () => {
    expect(warningsOf({ nodes: [{ id: 'a', prompt: 'hi', model: 'small', retry: { max_attempts: 2 } }] })).toEqual([]);
  });

  it('names unknown keys at the top level, on nodes, and nested, with dotted paths', () => {
    expect(
      warningsOf({
        colour: 'blue',
        inputs: { diff: { required: true, typo: 1 } },
        worktree: { enabled: false, path: '/tmp' },
        nodes: [
          { id: 'r', approval: { message: 'ok?', foo: 1, on_reject: { prompt: 'redo', tries: 2 } }, bar: 2 },
          { id: 'p', prompt: 'x', retry: { max_attempts: 2, backoff: 'linear' } },
        ],
      }),
    ).toEqual([
      "Workflow 'w': unknown key 'colour' will be ignored.",
      "Workflow 'w': unknown key 'inputs.diff.typo' will be ignored (did you mean 'type'?).",
      "Workflow 'w': unknown key 'worktree.path' will be ignored.",
      "Node 'r': unknown key 'approval.foo' will be ignored.",
      "Node 'r': unknown key 'approval.on_reject.tries' will be ignored.",
      "Node 'r': unknown key 'bar' will be ignored.",
      "Node 'p': unknown key 'retry.backoff' will be ignored.",
    ]);
  });

  it('checks inside provider blocks: each agents entry, pi, and the object form of context', () => {
    expect(
      warningsOf({
        nodes: [
          { id: 'a', prompt: 'x', agents: { 'my-agent': { description: 'd', prompt: 'p', colour: 1 } }, pi: { foo: 1 } },
          { id: 'b', prompt: 'y', depends_on: ['a'], context: { resume: 'a', fork: true } },
        ],
        // `pi:` on a node that runs on claude is also named as an option claude cannot take
        // (check-provider-options.test.ts); this test is about the keys inside the blocks.
      }).filter((w) => w.includes('unknown key')),
    ).toEqual([
      "Node 'a': unknown key 'agents.my-agent.colour' will be ignored.",
      "Node 'a': unknown key 'pi.foo' will be ignored.",
      "Node 'b': unknown key 'context.fork' will be ignored.",
    ]);
  });

  it('explains interactive on a node, and hints at misplaced workflow- and node-level keys', () => {
    const warnings = warningsOf({
      depends_on: ['x'],
      nodes: [{ id: 'a', prompt: 'x', interactive: true, tags: ['t'] }],
    });
    expect(warnings[0]).toBe(
      "Workflow 'w': unknown key 'depends_on' will be ignored. ('depends_on' is valid on individual nodes, not at workflow level.)",
    );
    expect(warnings[1]).toMatch(/^Node 'a': unknown key 'interactive' will be ignored\. Nothing on this node gates\. For a human gate, use an 'approval:' node/);
    expect(warnings[2]).toBe("Node 'a': unknown key 'tags' will be ignored. ('tags' is valid at workflow level, not on individual nodes.)");
  });

  it('warns about keys that belong to another node mode and drops them from the node', () => {
    const result = validateWorkflowDefinition({
      name: 'w',
      description: 'd',
      nodes: [
        { id: 'sh', bash: 'echo', model: 'large', allowed_tools: [], idle_timeout: 5000 },
        { id: 'ai', prompt: 'x', timeout: 1000, runtime: 'uv' },
        { id: 'py', script: 'print(1)', runtime: 'bun', deps: ['requests'] },
      ],
    });
    expect(result.warnings).toEqual([
      "Node 'sh': key 'model' will be ignored. ('model' applies to command, prompt, loop and loop_group nodes, not to bash nodes.)",
      "Node 'sh': key 'allowed_tools' will be ignored. ('allowed_tools' applies to command, prompt and loop nodes, not to bash nodes.)",
      "Node 'sh': key 'idle_timeout' will be ignored. ('idle_timeout' applies to command, prompt and loop nodes, not to bash nodes.) Use 'timeout' on bash nodes.",
      "Node 'ai': key 'timeout' will be ignored. ('timeout' applies to bash and script nodes, not to prompt nodes.) Use 'idle_timeout' on prompt nodes.",
      "Node 'ai': key 'runtime' will be ignored. ('runtime' applies to script nodes, not to prompt nodes.)",
      "Node 'py': key 'deps' will be ignored. ('deps' applies only to runtime 'uv'.)",
    ]);
    expect(result.valid && result.workflow.nodes).toEqual([
      { id: 'sh', bash: 'echo' },
      { id: 'ai', prompt: 'x' },
      { id: 'py', script: 'print(1)', runtime: 'bun' },
    ]);
  });

  it('labels loop_group body nodes with a breadcrumb', () => {
    expect(
      warningsOf({
        nodes: [
          { id: 'g', loop_group: { max_iterations: 2, until_bash: 'true', pause: 1, nodes: [{ id: 'b', bash: 'echo', colour: 1 }] } },
        ],
      }),
    ).toEqual([
      "Node 'g': unknown key 'loop_group.pause' will be ignored.",
      "Node 'g' → loop_group node 'b': unknown key 'colour' will be ignored.",
    ]);
  });

  it('does not warn inside free-form blocks (output_format, sandbox) and rejects unknown hook events', () => {
    expect(
      warningsOf({
        nodes: [{ id: 'a', prompt: 'x', output_format: { type: 'object', anything: true }, sandbox: { enabled: true, custom: 1 } }],
      }),
    ).toEqual([]);
    const result = validateWorkflowDefinition({
      name: 'w',
      description: 'd',
      nodes: [{ id: 'a', prompt: 'x', hooks: { preToolUse: [{ matcher: 'Bash', response: {} }] } }],
    });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors[0]).toContain("Node 'a':");
    expect(!result.valid && result.errors[0]).toContain('preToolUse');
  });

  it('moves the deprecated modelReasoningEffort to effort, with a warning', () => {
    const result = validateWorkflowDefinition({ name: 'w', description: 'd', modelReasoningEffort: 'high', nodes: [{ id: 'a', prompt: 'x' }] });
    expect(result.valid && result.workflow.effort).toBe('high');
    expect(result.warnings).toEqual([
      "Workflow 'w': key 'modelReasoningEffort' is deprecated; its value 'high' is used as 'effort'. Write 'effort:' instead.",
    ]);
  });

  it("drops 'required' from an input that also has a default, with a warning", () => {
    const result = validateWorkflowDefinition({
      name: 'w',
      description: 'd',
      inputs: { tone: { required: true, default: 'neutral' }, version: { required: true }, count: { default: 3 } },
      nodes: [{ id: 'a', prompt: '$INPUTS.tone $INPUTS.version $INPUTS.count' }],
    });
    expect(result.valid && result.workflow.inputs).toEqual({ tone: { default: 'neutral' }, version: { required: true }, count: { default: '3' } });
    expect(result.warnings).toEqual([
      "Workflow 'w': key 'inputs.tone.required' will be ignored. (An input with a 'default' is never missing; drop one of the two.)",
    ]);
  });
});

describe('loading YAML text', () => {
  it('loads a file and keeps its warnings', () => {
    const loaded = loadWorkflowText('name: w\ndescription: d\nnodes:\n  - id: a\n    prompt: hi\n    foo: 1\n');
    expect(loaded).toEqual({
      ok: true,
      workflow: { name: 'w', description: 'd', nodes: [{ id: 'a', prompt: 'hi' }] },
      parseWarnings: ["Node 'a': unknown key 'foo' will be ignored."],
    });
  });

  it.each([
    ['', 'YAML file is empty or does not contain an object', 'validation_error'],
    ['- just\n- a list\n', 'YAML file is empty or does not contain an object', 'validation_error'],
    ['name: [unclosed\n', 'YAML parse error:', 'parse_error'],
    ['name: w\nname: again\ndescription: d\nnodes: []\n', 'YAML parse error:', 'parse_error'],
    ['name: w\ndescription: d\n', "Workflow must have 'nodes:' configuration", 'validation_error'],
    ['name: w\ndescription: d\nsteps:\n  - command: x\n', '`steps:` format has been removed', 'validation_error'],
  ])('reports %j as one error of the right type', (text, error, errorType) => {
    const loaded = loadWorkflowText(text);
    expect(loaded.ok).toBe(false);
    expect(!loaded.ok && loaded.error).toContain(error);
    expect(!loaded.ok && loaded.errorType).toBe(errorType);
  });

  it('joins every problem of a file into its one error string', () => {
    const loaded = loadWorkflowText('name: w\nnodes:\n  - id: a\n    prompt: ""\n  - id: a\n    bash: echo\n');
    expect(!loaded.ok && loaded.error).toBe(
      "Missing required field 'description'; Node 'a': prompt cannot be empty; Duplicate node id: 'a'",
    );
  });
});
