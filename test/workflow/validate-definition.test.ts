import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition, type ValidationOptions } from '../../src/workflow/checks/validate-definition.js';

function errorsOf(definition: unknown, options?: ValidationOptions): string[] {
  const result = validateWorkflowDefinition(definition, options);
  return result.valid ? [] : result.errors;
}

const wf = (nodes: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'x', description: 'd', nodes, ...extra });

describe('validateWorkflowDefinition: the upstream acceptance cases', () => {
  it('reports a missing description, and only that', () => {
    expect(validateWorkflowDefinition({ name: 'x', nodes: [{ id: 'a', prompt: 'hi' }] })).toEqual({
      valid: false,
      errors: ["Missing required field 'description'"],
      warnings: [],
    });
  });

  it('reports a duplicate id', () => {
    expect(errorsOf(wf([{ id: 'a', prompt: 'hi' }, { id: 'a', prompt: 'hi' }]))).toEqual(["Duplicate node id: 'a'"]);
  });

  it('reports an unknown dependency', () => {
    expect(errorsOf(wf([{ id: 'a', prompt: 'hi' }, { id: 'b', prompt: 'x', depends_on: ['zz'] }]))).toEqual([
      "Node 'b' depends_on unknown node 'zz'",
    ]);
  });

  it('reports a cycle first, naming its nodes', () => {
    const errors = errorsOf(wf([{ id: 'a', prompt: 'x', depends_on: ['b'] }, { id: 'b', prompt: 'y', depends_on: ['a'] }]));
    expect(errors[0]).toBe('Cycle detected among nodes: a, b');
  });

  it('reports mutually exclusive mode keys', () => {
    expect(errorsOf(wf([{ id: 'a', prompt: 'x', bash: 'echo' }]))[0]).toContain('are mutually exclusive');
  });

  it('requires a runtime on script nodes', () => {
    expect(errorsOf(wf([{ id: 's', script: 'print(1)' }]))).toEqual([
      "Node 's': 'runtime' is required for script nodes ('bun' or 'uv')",
    ]);
  });

  it('accepts a clean workflow with an unknown node key, warning about the key', () => {
    const result = validateWorkflowDefinition(wf([{ id: 'a', prompt: 'hi', foo: 1 }]));
    expect(result).toMatchObject({ valid: true, warnings: ["Node 'a': unknown key 'foo' will be ignored."] });
    expect(result.valid && result.workflow.nodes[0]).toEqual({ id: 'a', prompt: 'hi' });
  });
});

describe('validateWorkflowDefinition: every problem at once', () => {
  it('lists top-level, node, graph and reference problems together', () => {
    const errors = errorsOf({
      nodes: [
        { id: 'a', prompt: '' },
        { id: 'b', bash: 'echo $nowhere.output', depends_on: ['ghost'] },
        { id: 'c', loop: { prompt: 'go', max_iterations: 3, until: 'DONE' }, retry: { max_attempts: 2 } },
        { id: 'd', prompt: 'x', provider: 'nope' },
        { id: 'e', script: '', runtime: 'node' },
      ],
    });
    expect(errors).toEqual([
      "Missing required field 'name'",
      "Missing required field 'description'",
      "Node 'a': prompt cannot be empty",
      "Node 'c': 'retry' is not supported on loop nodes (loop manages its own iteration)",
      "Node 'e': script cannot be empty",
      "Node 'e': 'runtime' must be 'bun' or 'uv', not 'node'",
      "Node 'b' depends_on unknown node 'ghost'",
      "Node 'b' references unknown node '$nowhere.output'",
      "Node 'd': unknown provider 'nope'. Registered: claude, codex, opencode, pi, copilot, gemini, anthropic, openai-compatible",
    ]);
  });

  it('reports empty bodies with the upstream texts', () => {
    expect(errorsOf(wf([{ id: 'a', bash: '   ' }, { id: 'b', cancel: '' }, { id: 'c' }]))).toEqual([
      "Node 'a': bash script cannot be empty",
      "Node 'b': 'cancel' reason must not be empty",
      "Node 'c': must have either 'command', 'prompt', 'bash', 'loop', 'loop_group', 'approval', 'cancel', 'script', 'include', 'workflow', 'wait', or 'github'",
    ]);
  });

  it('rejects retry where the node manages its own attempts', () => {
    const errors = errorsOf(
      wf([
        { id: 'g', loop_group: { max_iterations: 2, until_bash: 'true', nodes: [{ id: 'b', bash: 'echo' }] }, retry: { max_attempts: 2 } },
        { id: 'w', workflow: 'child', retry: { max_attempts: 2 } },
      ]),
    );
    expect(errors).toEqual([
      "Node 'g': 'retry' is not supported on loop_group nodes (loop_group manages its own iteration)",
      "Node 'w': 'retry' is not supported on workflow nodes (a retry would orphan the first child run — resume through the parent instead)",
    ]);
  });

  it('checks value ranges and names the field', () => {
    expect(errorsOf(wf([{ id: 'a', bash: 'x', timeout: -5, retry: { max_attempts: 9, delay_ms: 10 } }]))).toEqual([
      "Node 'a': 'retry.max_attempts' must be at most 5",
      "Node 'a': 'retry.delay_ms' must be at least 1000",
      "Node 'a': 'timeout' must be a positive number (ms)",
    ]);
  });

  it('reports an unregistered workflow provider with the registered ids', () => {
    expect(errorsOf(wf([{ id: 'a', prompt: 'x' }], { provider: 'gpt' }))).toEqual([
      "Unknown provider 'gpt'. Registered: claude, codex, opencode, pi, copilot, gemini, anthropic, openai-compatible",
    ]);
  });
});

describe('validateWorkflowDefinition: references', () => {
  it('rejects references to unknown nodes, with a suggestion', () => {
    expect(errorsOf(wf([{ id: 'plan', prompt: 'x' }, { id: 'b', depends_on: ['plan'], prompt: 'Use $plann.output' }]))).toEqual([
      "Node 'b' references unknown node '$plann.output' (did you mean 'plan'?)",
    ]);
  });

  it('rejects references to nodes that are not upstream', () => {
    expect(errorsOf(wf([{ id: 'a', prompt: 'x' }, { id: 'b', bash: 'echo $a.output' }]))).toEqual([
      "Node 'b' references '$a.output', but 'a' is not upstream of 'b' — add it to depends_on (directly or through another node)",
    ]);
  });

  it('accepts transitive upstream references and ignores example syntax inside Markdown code in prompts', () => {
    const result = validateWorkflowDefinition(
      wf([
        { id: 'a', bash: 'echo 1' },
        { id: 'b', bash: 'echo 2', depends_on: ['a'] },
        { id: 'c', depends_on: ['b'], prompt: 'Got $a.output. Write refs like `$other.output` or\n```yaml\nbash: echo $x.output\n```' },
      ]),
    );
    expect(result.valid).toBe(true);
  });

  it('rejects undeclared inputs in bodies and in when', () => {
    const errors = errorsOf(
      wf([{ id: 'a', bash: 'echo $INPUTS.versoin', when: "$INPUTS.mode == 'x'" }], { inputs: { version: { required: true } } }),
    );
    expect(errors).toEqual([
      "Node 'a' references undeclared input '$INPUTS.versoin' (did you mean 'version'?)",
      "Node 'a' references undeclared input '$INPUTS.mode'",
    ]);
  });

  it('rejects invalid when expressions and when references that are not upstream', () => {
    const errors = errorsOf(
      wf([
        { id: 'a', bash: 'echo ok' },
        { id: 'b', bash: 'echo', depends_on: ['a'], when: "$a.output = 'ok'" },
        { id: 'c', bash: 'echo', when: "$a.output == 'ok'" },
      ]),
    );
    expect(errors).toEqual([
      `Node 'b': invalid 'when' expression "$a.output = 'ok'": expected an operator (== != <= >= < >) at "= 'ok'"`,
      "Node 'c' references '$a.output', but 'a' is not upstream of 'c' — add it to depends_on (directly or through another node)",
    ]);
  });

  it("rejects comparing an AI node's whole free-text output to a value, but allows fields, bash output and emptiness", () => {
    const errors = errorsOf(
      wf([
        { id: 'ai', prompt: 'yes or no?' },
        { id: 'typed', prompt: 'classify', output_format: { type: 'object', properties: { kind: { type: 'string' } } } },
        { id: 'sh', bash: 'echo yes' },
        { id: 'bad', bash: 'echo', depends_on: ['ai'], when: "$ai.output == 'yes'" },
        { id: 'field', bash: 'echo', depends_on: ['typed'], when: "$typed.output.kind == 'bug'" },
        { id: 'shell', bash: 'echo', depends_on: ['sh'], when: "$sh.output == 'yes'" },
        { id: 'empty', cancel: 'nothing planned', depends_on: ['ai'], when: "$ai.output == ''" },
      ]),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Node 'bad': 'when' compares the whole free-text output of 'ai'/);
  });

  it('checks loop_group bodies as scoped graphs that may read the group upstream', () => {
    const errors = errorsOf(
      wf([
        { id: 'seed', bash: 'echo 1' },
        { id: 'other', bash: 'echo 2' },
        {
          id: 'g',
          depends_on: ['seed'],
          loop_group: {
            max_iterations: 3,
            until_bash: 'test -f done',
            nodes: [
              { id: 'tick', bash: 'echo $seed.output $LOOP_PREV.tock.output' },
              { id: 'tock', bash: 'echo $tick.output $other.output', depends_on: ['tick'] },
            ],
          },
        },
      ]),
    );
    expect(errors).toEqual(["Node 'g' → loop_group node 'tock' references unknown node '$other.output'"]);
  });

  it('rejects a loop_group body node that shadows a node of the workflow', () => {
    const errors = errorsOf(
      wf([
        { id: 'seed', bash: 'echo 1' },
        { id: 'g', loop_group: { max_iterations: 2, until_bash: 'true', nodes: [{ id: 'seed', bash: 'echo 2' }] } },
      ]),
    );
    expect(errors).toEqual(["Node 'g' → loop_group node 'seed': id shadows a node of the enclosing workflow"]);
  });

  it('requires fan_out.items to be a reference or a JSON array', () => {
    expect(errorsOf(wf([{ id: 'w', workflow: 'child', fan_out: { items: 'one, two' } }]))).toEqual([
      "Node 'w': 'fan_out.items' must be a $node.output reference or a JSON array",
    ]);
    expect(errorsOf(wf([{ id: 'w', workflow: 'child', fan_out: { items: '["one", "two"]', max_parallel: 2 } }]))).toEqual([]);
  });
});

describe('validateWorkflowDefinition: lookups supplied by the caller', () => {
  it('rejects unknown commands and child workflows when it can look them up', () => {
    const options: ValidationOptions = { commandExists: (n) => n === 'known', workflowExists: (n) => n === 'child' };
    expect(
      errorsOf(
        wf([
          { id: 'a', command: 'known' },
          { id: 'b', command: 'missing' },
          { id: 'c', loop: { command: 'gone', max_iterations: 2, until: 'DONE' } },
          { id: 'd', workflow: 'nochild' },
        ]),
        options,
      ),
    ).toEqual([
      "Node 'b': command 'missing' not found (no missing.md in the project, home or bundled commands folders)",
      "Node 'c': command 'gone' not found (no gone.md in the project, home or bundled commands folders)",
      "Node 'd': workflow 'nochild' not found",
    ]);
  });

  it('rejects a command name that would leave the commands folder', () => {
    expect(errorsOf(wf([{ id: 'a', command: '../secrets' }]))).toEqual([`Node 'a': invalid command name "../secrets"`]);
  });
});

describe('validateWorkflowDefinition: node identity and sessions', () => {
  it('requires an id on every node and reserves INPUTS', () => {
    expect(errorsOf(wf([{ prompt: 'x' }, { id: 'INPUTS', prompt: 'y' }, { id: 7, prompt: 'z' }]))).toEqual([
      "Node '#1': missing required field 'id'",
      "Node 'INPUTS': 'INPUTS' is reserved and cannot be a node id",
      "Node '#3': 'id' must be a string",
    ]);
  });

  it('lets context.resume name only an upstream node', () => {
    const errors = errorsOf(
      wf([
        { id: 'a', prompt: 'x' },
        { id: 'b', prompt: 'y', context: { resume: 'c' } },
        { id: 'c', prompt: 'z', depends_on: ['a'], context: { resume: 'ghost' } },
        { id: 'd', prompt: 'w', depends_on: ['a'], context: { resume: 'a' } },
      ]),
    );
    expect(errors).toEqual([
      "Node 'b': 'context.resume' names 'c', which is not upstream of 'b'",
      "Node 'c': 'context.resume' names unknown node 'ghost'",
    ]);
  });
});

describe('node ids', () => {
  it('accepts letters, digits, _ and -, and refuses ids that references and record paths cannot carry', () => {
    const withId = (id: string) =>
      validateWorkflowDefinition({ name: 'ids', description: 'd', nodes: [{ id, bash: 'echo' }] });
    expect(withId('build-and_test2').valid).toBe(true);
    for (const id of ['a/b', 'fan[2]', 'has space', 'dot.ted', '-leading']) {
      const result = withId(id);
      expect(result.valid).toBe(false);
      expect(result.valid ? [] : result.errors).toEqual([
        `Node '${id}': '${id}' is not a valid node id: use letters, digits, '_' and '-' (it must not start with '-')`,
      ]);
    }
  });
});

describe('node id length', () => {
  const withId = (id: string) => validateWorkflowDefinition({ name: 'ids', description: 'd', nodes: [{ id, bash: 'echo' }] });

  it('accepts an id of 100 characters and refuses a longer one, naming its start, its length and the limit', () => {
    expect(withId('a'.repeat(100)).valid).toBe(true);
    const result = withId('b'.repeat(300));
    const quoted = `${'b'.repeat(40)}…`;
    expect(result.valid ? [] : result.errors).toEqual([
      `Node '${quoted}': node id '${quoted}' is 300 characters long: a node id is at most 100 characters; shorten it`,
    ]);
  });

  it('checks the nodes of a loop_group body too', () => {
    const result = validateWorkflowDefinition({
      name: 'ids', description: 'd',
      nodes: [{ id: 'grp', loop_group: { max_iterations: 1, until_bash: 'true', nodes: [{ id: 'c'.repeat(101), bash: 'echo' }] } }],
    });
    const quoted = `${'c'.repeat(40)}…`;
    expect(result.valid ? [] : result.errors).toEqual([
      `Node 'grp' → loop_group node '${quoted}': node id '${quoted}' is 101 characters long: a node id is at most 100 characters; shorten it`,
    ]);
  });
});
