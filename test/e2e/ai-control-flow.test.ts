import { afterEach, beforeEach, expect, it } from 'vitest';
import { requestGateAnswer } from '../../src/runs/run-operations.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../helpers/anthropic-server.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * AI bodies inside control flow, through the real supervisor, pool and anthropic adapter against
 * a local Messages API server: a loop whose iterations are prompts, and a gate whose on_reject
 * rework is a prompt that receives the rejection reason.
 */

let home: TempHome;
let server: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
});

const text = (value: string): MessagesReply => ({ kind: 'stream', blocks: [{ type: 'text', text: value }], usage: { input_tokens: 3, output_tokens: 1 } });

async function supervisorFor(reply: (i: number) => MessagesReply) {
  server = await startAnthropicServer((_req, i) => reply(i));
  return startSupervisor(home, { limit: 4, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
}

it('runs a loop whose body is a prompt until the signal, each iteration a new invocation with its loopPath', async () => {
  const sup = await supervisorFor((i) => text(i < 2 ? `draft ${i + 1}` : 'all good <promise>DONE</promise>'));
  const run = await sup.createRun(`name: ai-loop
description: a prompt repeated until it says DONE
provider: anthropic
nodes:
  - id: refine
    loop:
      prompt: "Improve it. Previous: $LOOP_PREV_OUTPUT"
      until: DONE
      max_iterations: 5
`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  const events = await sup.events(run.id);
  const iterations = events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'refine/body').map((e) => e.data.execution);
  expect(iterations.map((x) => x.invocation.loopPath)).toEqual([1, 2, 3].map((iteration) => [{ groupId: 'refine', iteration }]));
  expect(iterations.map((x) => x.diagnostics?.iteration)).toEqual([1, 2, 3]);
  expect(new Set(iterations.map((x) => x.invocation.id)).size).toBe(3);
  expect(iterations[0].binding).toMatchObject({ provider: 'anthropic' });
  expect(server.requests.map((r) => r.body.messages[0].content)).toEqual([
    'Improve it. Previous: ', 'Improve it. Previous: draft 1', 'Improve it. Previous: draft 2',
  ]);
  const loop = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'refine')!;
  // The loop's output is its last iteration's, the <promise> tags removed.
  expect(String(loop.data.node_output).trim()).toBe('all good DONE');
});

it("reruns a gate's prompt rework with the rejection reason, then asks again", async () => {
  const sup = await supervisorFor(() => text('a better plan'));
  const store = home.openStore();
  const run = await sup.createRun(`name: ai-gate
description: a gate whose rework is a prompt
provider: anthropic
nodes:
  - id: review
    approval:
      message: "Approve the plan?"
      on_reject:
        prompt: "Revise the plan. The reviewer said: $REJECTION_REASON"
        max_attempts: 3
  - id: after
    depends_on: [review]
    bash: echo approved
`);
  await sup.waitForStatus(run.id, ['paused']);
  await requestGateAnswer(store, run.id, 'reject', { reason: 'too vague; "name" the risks $(id)' });
  // The rework runs, then the gate asks again: the run pauses a second time.
  await waitForEvents(sup, run.id, (events) => events.filter((e) => e.event_type === 'workflow_paused').length === 2);
  expect(server.requests.map((r) => r.body.messages[0].content)).toEqual([
    'Revise the plan. The reviewer said: too vague; "name" the risks $(id)',
  ]);
  const rework = (await sup.events(run.id)).find((e) => e.event_type === 'node_completed' && e.step_name === 'review/on_reject')!;
  expect(rework.data.execution.binding).toMatchObject({ provider: 'anthropic' });
  await requestGateAnswer(store, run.id, 'approve', {});
  expect((await sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
});

async function waitForEvents(
  sup: Awaited<ReturnType<typeof supervisorFor>>,
  runId: string,
  done: (events: Awaited<ReturnType<typeof sup.events>>) => boolean,
): Promise<void> {
  await waitFor(async () => done(await sup.events(runId)), { what: 'the run to reach the expected events' });
}
