import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp } from '../../helpers/app.js';
import { startOpenAiServer, type ChatReply, type OpenAiServer } from '../../helpers/openai-server.js';
import { startSupervisor, type LooseEvent } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * `output_format` through the real supervisor, worker pool and `openai-compatible` adapter
 * against a local Chat Completions server: a field the schema declares as optional and the
 * answer leaves out reads as '' wherever `$node.output.<field>` is read (a bash body, a `when:`,
 * a loop body and `$LOOP_PREV`, a fan-out instance, a child workflow's result, after a resume);
 * a field the schema does not declare fails its reader.
 */

const schema = '{ type: object, properties: { kind: { type: string }, note: { type: string } }, required: [kind] }';

let home: TempHome;
let server: OpenAiServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
  server = undefined;
});

const completed = (events: LooseEvent[], path: string) => events.find((e) => e.step_name === path && e.event_type === 'node_completed');
const outputOf = (events: LooseEvent[], path: string) => completed(events, path)?.data.node_output as string | undefined;

it('reads an absent optional field as empty in bash and when:, also after a resume; the re-asked answer and both calls\' spend are in the record', async () => {
  const replies: ChatReply[] = [
    { kind: 'stream', deltas: ['It is a bug.'], usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } },
    { kind: 'stream', deltas: ['{"kind":"bug"}'], usage: { prompt_tokens: 80, completion_tokens: 6, total_tokens: 86 } },
  ];
  server = await startOpenAiServer((_req, i) => replies[i] ?? { kind: 'error', status: 500, type: 'server_error', message: 'unexpected call' });
  const sup = await startSupervisor(home, { env: { OPENAI_BASE_URL: server.url } });
  const api = await makeTestApp(home);
  const marker = join(home.home, 'fixed');
  const run = await sup.createRun(
    `name: optional-note
description: an optional field the answer leaves out
provider: openai-compatible
model: test-model
nodes:
  - id: a
    prompt: "Classify: the button does nothing."
    output_format: ${schema}
  - id: read
    depends_on: [a]
    bash: |
      printf 'kind=%s note=[%s]' $a.output.kind $a.output.note
  - id: when-empty
    depends_on: [a]
    when: "$a.output.note == '' && $a.output.kind == 'bug'"
    bash: echo taken
  - id: when-set
    depends_on: [a]
    when: "$a.output.note != ''"
    bash: echo wrongly-taken
  - id: flaky
    depends_on: [read]
    bash: test -f "$ARGUMENTS"
  - id: after-resume
    depends_on: [flaky]
    when: "$a.output.note == ''"
    bash: |
      printf 'kind=%s note=[%s]' $a.output.kind $a.output.note
`,
    { message: marker },
  );

  const failed = await sup.waitForStatus(run.id, ['failed', 'completed']);
  expect(failed.status).toBe('failed');
  let events = await sup.events(run.id);
  expect(outputOf(events, 'a')).toBe('{"kind":"bug"}');
  expect(outputOf(events, 'read')).toBe('kind=bug note=[]');
  expect(outputOf(events, 'when-empty')).toBe('taken');
  expect(events.find((e) => e.step_name === 'when-set')?.event_type).toBe('node_skipped');
  // The answer was asked again once, and the record spends both calls.
  const a = completed(events, 'a')!.data.execution;
  expect(a.diagnostics.structuredReasks).toEqual([expect.stringMatching(/^the answer is not JSON/)]);
  expect(a.spend.tokens).toEqual({ source: 'provider', value: { input: 130, output: 11, total: 141 } });
  expect(events.filter((e) => e.step_name === 'a' && e.event_type === 'node_started')).toHaveLength(1);

  // The run goes on from its events: `a` is replayed (its schema comes from the definition).
  writeFileSync(marker, '');
  const resumed = await api.app.inject({ method: 'POST', url: `/api/workflows/runs/${run.id}/resume` });
  expect(resumed.statusCode).toBe(200);
  const done = await sup.waitForStatus(run.id, ['completed']);
  expect(done.status).toBe('completed');
  events = await sup.events(run.id);
  expect(outputOf(events, 'after-resume')).toBe('kind=bug note=[]');
  expect(server.requests).toHaveLength(2);
});

it('reads it as empty in loop bodies and $LOOP_PREV, a fan-out instance (a child run) and a child workflow\'s result; an undeclared field fails its reader', async () => {
  server = await startOpenAiServer(() => ({ kind: 'stream', deltas: ['{"kind":"bug","done":true}'] }));
  await writeHomeWorkflow(home, 'classify-one', `name: classify-one
description: classifies its argument
provider: openai-compatible
model: test-model
returns: ask
nodes:
  - id: ask
    prompt: "Classify: $ARGUMENTS"
    output_format: ${schema}
  - id: use
    depends_on: [ask]
    when: "$ask.output.note == ''"
    bash: |
      printf 'kind=%s note=[%s]' $ask.output.kind $ask.output.note
`);
  const sup = await startSupervisor(home, { env: { OPENAI_BASE_URL: server.url } });
  const run = await sup.createRun(`name: optional-everywhere
description: optional fields in every place a reference is read
provider: openai-compatible
model: test-model
nodes:
  - id: group
    loop_group:
      max_iterations: 3
      until: DONE
      nodes:
        - id: ask
          prompt: classify
          output_format: ${schema}
        - id: use
          depends_on: [ask]
          bash: |
            printf 'note=[%s] prev-note=[%s]\\n' $ask.output.note $LOOP_PREV.ask.output.note
            if [ -n $LOOP_PREV.ask.output.kind ]; then echo DONE; fi
  - id: looped
    loop:
      prompt: classify
      until_field: done
      max_iterations: 2
    output_format: { type: object, properties: { kind: { type: string }, note: { type: string }, done: { type: boolean } }, required: [kind, done] }
  - id: read-looped
    depends_on: [looped]
    bash: printf 'note=[%s]' $looped.output.note
  - id: each
    workflow: classify-one
    fan_out: { items: '["x"]', mode: child_runs }
  - id: child
    workflow: classify-one
    input: y
    output_format: ${schema}
  - id: read-child
    depends_on: [child]
    when: "$child.output.note == ''"
    bash: printf 'kind=%s note=[%s]' $child.output.kind $child.output.note
  - id: undeclared
    depends_on: [child]
    bash: echo $child.output.severity
`);

  await sup.waitForStatus(run.id, ['failed', 'completed']);
  const events = await sup.events(run.id);
  expect(outputOf(events, 'group')).toBe('note=[] prev-note=[]\nDONE');
  expect(events.filter((e) => e.step_name === 'group/use' && e.event_type === 'node_completed')).toHaveLength(2);
  expect(outputOf(events, 'read-looped')).toBe('note=[]');
  // The fan-out's item ran as a child run (an AI node cannot run in-run), reading its own node.
  const [instance] = await sup.store.listChildRuns(run.id, 'each');
  expect(outputOf(await sup.events(instance!.id), 'use')).toBe('kind=bug note=[]');
  expect(outputOf(events, 'each')).toBe('["{\\"kind\\":\\"bug\\",\\"done\\":true}"]');
  expect(outputOf(events, 'read-child')).toBe('kind=bug note=[]');
  const undeclared = events.find((e) => e.step_name === 'undeclared' && e.event_type === 'node_failed');
  expect(undeclared?.data.error).toContain("$child.output.severity: field 'severity' is not declared in node 'child' output_format schema");
});
