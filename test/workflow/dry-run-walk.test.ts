import { describe, expect, it } from 'vitest';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import type { DryRunKindDeps } from '../../src/workflow/dry-run/dry-run-kinds.js';
import { walkDryRun } from '../../src/workflow/dry-run/dry-run-walk.js';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { resolveRunInputs } from '../../src/workflow/schema/run-inputs.js';
import type { WorkflowDefinition } from '../../src/workflow/schema/workflow-schema.js';

/** The walk alone (the route and the CLI are tested against the real server in test/cli/workflow-run-live.test.ts). */

function load(yaml: string): WorkflowDefinition {
  const loaded = loadWorkflowText(yaml);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.workflow;
}

const deps = (definition: WorkflowDefinition, commands: Record<string, string> = {}): DryRunKindDeps => ({
  bind: (node) => resolveModelBinding({ node, workflow: definition, layers: {} }),
  loadCommand: (name) =>
    commands[name] !== undefined ? { ok: true, text: commands[name] } : { ok: false, message: `Command not found: ${name}.md` },
});

function walk(yaml: string, inputs: Record<string, string> = {}, commands: Record<string, string> = {}) {
  const definition = load(yaml);
  const resolved = resolveRunInputs(definition.name, definition.inputs, { text: inputs });
  const trace = walkDryRun({ definition, inputs: resolved, message: 'the task', variables: {} }, deps(definition, commands));
  return { trace, byId: new Map(trace.nodes.map((n) => [n.id, n])), decisions: trace.nodes.map((n) => `${n.id}:${n.decision}`) };
}

describe('a dry run walk', () => {
  it('decides a when: in three-valued logic: an input can decide it, a stub output cannot', () => {
    const yaml = `name: w
description: d
inputs:
  mode: { default: fast }
nodes:
  - id: judge
    prompt: judge it
    output_format: { type: object, properties: { ok: { type: boolean } }, required: [ok] }
  - id: either
    depends_on: [judge]
    when: "$INPUTS.mode == 'fast' || $judge.output.ok == true"
    bash: echo either
  - id: both
    depends_on: [judge]
    when: "$INPUTS.mode == 'fast' && $judge.output.ok == true"
    bash: echo both
  - id: never
    depends_on: [judge]
    when: "$INPUTS.mode == 'slow' && $judge.output.ok == true"
    bash: echo never
`;
    const { byId, decisions } = walk(yaml, { mode: 'fast' });
    expect(decisions).toEqual(['judge:run', 'either:run', 'both:conditional', 'never:skip']);
    expect(byId.get('both')!.reason).toBe("when: $INPUTS.mode == 'fast' && $judge.output.ok == true depends on a runtime value ($judge.output.ok)");
    expect(byId.get('judge')!.model).toEqual({ provider: 'claude', model: null, source: 'provider_default' });
  });

  it('fails a node that could not start, skipping its dependants as a run would, and runs an all_done one', () => {
    const yaml = `name: w
description: d
nodes:
  - id: ask
    command: missing-command
  - id: after
    depends_on: [ask]
    bash: echo after
  - id: cleanup
    depends_on: [ask]
    trigger_rule: all_done
    bash: echo cleanup
  - id: known
    command: known
`;
    const { trace, byId, decisions } = walk(yaml, {}, { known: 'Do $ARGUMENTS in $WORKFLOW_ID' });
    expect(decisions).toEqual(['ask:fail', 'after:skip', 'cleanup:run', 'known:run']);
    expect(byId.get('ask')!.reason).toBe("Node 'ask': Command not found: missing-command.md");
    expect(byId.get('after')!.reason).toBe("trigger rule all_success: dependency 'ask' would fail");
    expect(byId.get('known')!.text).toBe('Do the task in <dry-run WORKFLOW_ID>');
    expect(trace.counts).toEqual({ run: 2, skip: 1, conditional: 0, fail: 1, not_reached: 0 });
  });

  it('walks a loop_group body once after the group, with its defaults; a wait yields its empty output', () => {
    const yaml = `name: w
description: d
nodes:
  - id: pause
    wait: { duration_ms: 60000 }
  - id: rounds
    depends_on: [pause]
    provider: codex
    model: gpt-5.5
    loop_group:
      max_iterations: 4
      until: DONE
      nodes:
        - id: draft
          prompt: "draft after '$pause.output'"
        - id: check
          depends_on: [draft]
          bash: echo $draft.output
`;
    const { byId, decisions } = walk(yaml);
    expect(decisions).toEqual(['pause:run', 'rounds:run', 'rounds/draft:run', 'rounds/check:run']);
    expect(byId.get('pause')).toMatchObject({ output: '', detail: 'waits 60000 ms; a dry run does not wait' });
    expect(byId.get('rounds')!.detail).toContain('a dry run walks one iteration; a real run repeats it up to 4 times, until the output signals DONE');
    expect(byId.get('rounds/draft')).toMatchObject({ model: { provider: 'codex', model: 'gpt-5.5', source: 'node' }, text: "draft after ''" });
    expect(byId.get('rounds/check')).toMatchObject({ text: 'echo <dry-run output of rounds/draft>', stubbed: ['draft'] });
  });

  it('leaves every node after a cancel that would run not reached; a conditional cancel stops nothing', () => {
    const yaml = `name: w
description: d
inputs:
  stop: { default: 'yes' }
nodes:
  - id: first
    bash: echo first
  - id: halt
    depends_on: [first]
    when: "$INPUTS.stop == 'yes'"
    cancel: "stopped for $INPUTS.stop"
  - id: later
    depends_on: [first]
    bash: echo later
`;
    const { byId, decisions } = walk(yaml);
    expect(decisions).toEqual(['first:run', 'halt:run', 'later:not_reached']);
    expect(byId.get('halt')).toMatchObject({ text: 'stopped for yes', output: 'stopped for yes' });
    expect(byId.get('later')!.reason).toBe("the run is cancelled by node 'halt' before this node");
    expect(walk(yaml, { stop: 'no' }).decisions).toEqual(['first:run', 'halt:skip', 'later:run']);
  });

  it('counts the items of a listed fan-out and names a model alias no layer defines', () => {
    const yaml = `name: w
description: d
nodes:
  - id: each
    workflow: child
    fan_out: { items: '["a", "b", "c"]', max_parallel: 2 }
  - id: odd
    model: '@nowhere'
    prompt: hi
`;
    const { byId } = walk(yaml);
    expect(byId.get('each')!.detail).toBe("fans out over its 3 listed items: each item runs workflow 'child' (max 2 at once); a dry run starts none");
    expect(byId.get('odd')!.decision).toBe('fail');
    expect(byId.get('odd')!.reason).toBe("Node 'odd': Unknown alias '@nowhere'. Defined aliases: none");
  });
});
