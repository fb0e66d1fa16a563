import { afterEach, beforeEach, expect, it } from 'vitest';
import { nodeTimeline, startSupervisor, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

let home: TempHome;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

it('a failed node skips its dependants, independent branches still run, and the run fails naming the node', async () => {
  const run = await sup.createRun(`name: partial
description: one failure among three
nodes:
  - id: a
    bash: "echo broken >&2; exit 1"
  - id: b
    depends_on: [a]
    bash: echo never
  - id: c
    bash: echo hi
`);
  const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(done.status).toBe('failed');
  expect(done.error).toMatch(/^DAG workflow 'partial' completed with failures: 'a': exit code 1: broken/);
  const events = await sup.events(run.id);
  const byNode = (id: string, type: string) => events.find((e) => e.step_name === id && e.event_type === type);
  expect(byNode('a', 'node_failed')?.data.execution).toMatchObject({ lifecycle: { status: 'failed', failureKind: 'exec_failed' } });
  expect(byNode('b', 'node_skipped')?.data).toMatchObject({
    reason: 'trigger_rule',
    execution: { lifecycle: { status: 'skipped', reason: 'trigger_rule', cause: { kind: 'upstream_failed', origin: 'a' } } },
  });
  expect(byNode('c', 'node_completed')?.data.node_output).toBe('hi');
  expect(events.at(-1)?.event_type).toBe('workflow_failed');
});

it('passes outputs downstream exactly, branches on when conditions and joins on trigger rules', async () => {
  const run = await sup.createRun(`name: branches
description: the deterministic corpus pattern
nodes:
  - id: probe
    bash: "echo '{\\"status\\":\\"ok\\",\\"value\\":42}'"
  - id: taken
    depends_on: [probe]
    when: "$probe.output.status == 'ok'"
    bash: echo "value=$probe.output.value"
  - id: untaken
    depends_on: [probe]
    when: "$probe.output.status == 'fail'"
    bash: echo never
  - id: join
    depends_on: [taken, untaken]
    trigger_rule: one_success
    bash: |
      raw=$probe.output
      test "$raw" = '{"status":"ok","value":42}' || exit 1
      echo joined:$taken.output:[$untaken.output]
`);
  const done = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(done.status).toBe('completed');
  const events = await sup.events(run.id);
  const output = (id: string) => events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output;
  expect(output('taken')).toBe('value=42');
  expect(output('join')).toBe('joined:value=42:[]');
  const skip = (id: string) => events.find((e) => e.step_name === id && e.event_type === 'node_skipped')?.data;
  expect(skip('untaken')).toMatchObject({ reason: 'when_condition', expr: "$probe.output.status == 'fail'" });
});

it('fails a node that references the output of a failed node, instead of splicing stale text', async () => {
  const run = await sup.createRun(`name: stale
description: a reference to a failed producer
nodes:
  - id: a
    bash: exit 2
  - id: b
    depends_on: [a]
    trigger_rule: all_done
    bash: echo "got $a.output"
`);
  await sup.waitForStatus(run.id, ['failed']);
  const failed = (await sup.events(run.id)).find((e) => e.step_name === 'b' && e.event_type === 'node_failed');
  expect(failed?.data.error).toMatch(/\$a\.output: node 'a' failed/);
});

it('gives bash nodes their inputs and the run message through the environment, never as code', async () => {
  const run = await sup.createRun(
    `name: env
description: inputs and message
inputs:
  who: { default: world }
  mood: { required: true }
nodes:
  - id: greet
    bash: echo "$INPUTS_WHO $INPUTS_MOOD [$ARGUMENTS]"
`,
    { message: '$(touch pwned); `id`', inputs: { mood: 'glad' } },
  );
  await sup.waitForStatus(run.id, ['completed']);
  const done = (await sup.events(run.id)).find((e) => e.event_type === 'node_completed');
  expect(done?.data.node_output).toBe('world glad [$(touch pwned); `id`]');
});

it('retries a node with a retry policy as a new attempt of the same invocation', async () => {
  const run = await sup.createRun(`name: flaky
description: fails once, then passes
nodes:
  - id: flaky
    bash: "if [ -e .tried ]; then echo ok; else touch .tried; exit 1; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
  await sup.waitForStatus(run.id, ['completed']);
  const events = (await sup.events(run.id)).filter((e) => e.step_name === 'flaky');
  expect(events.map((e) => e.event_type)).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
  const invocations = new Set(events.map((e) => e.data.execution.invocation.id));
  const attempts = new Set(events.map((e) => e.data.execution.attempt.id));
  expect(invocations.size).toBe(1);
  expect(attempts.size).toBe(2);
});

it('fails an AI node its provider cannot be called for with a configuration error, never a silent success', async () => {
  // Copilot runs with a custom model provider and needs a model: none is set anywhere here.
  const run = await sup.createRun(`name: agentic
description: an AI node
nodes:
  - id: think
    provider: copilot
    prompt: "Say hi"
  - id: after
    depends_on: [think]
    bash: echo never
`);
  const done = await sup.waitForStatus(run.id, ['failed']);
  const events = await sup.events(run.id);
  const failed = events.find((e) => e.step_name === 'think' && e.event_type === 'node_failed');
  expect(failed?.data.execution.lifecycle).toMatchObject({ failureKind: 'config' });
  expect(failed?.data.error).toMatch(/Copilot needs a model/);
  expect(nodeTimeline(events)).toEqual(['node_started:think', 'node_failed:think', 'node_skipped:after']);
  expect(done.error).toMatch(/failed: node\(s\) think failed/);
});

it('records the keys a workflow file declared but Cairn ignores, at run start', async () => {
  const run = await sup.createRun(`name: warned
description: an unknown key
nodes:
  - id: a
    bash: echo ok
    colour: blue
`);
  await sup.waitForStatus(run.id, ['completed']);
  const warnings = (await sup.events(run.id)).find((e) => e.event_type === 'workflow_parse_warnings');
  expect(warnings?.data.warnings).toEqual(["Node 'a': unknown key 'colour' will be ignored."]);
});
