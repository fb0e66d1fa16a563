import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { requestGateAnswer } from '../../src/runs/run-operations.js';
import { startAnthropicServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * docs/providers.md (Limits): "A provider limit is exact and shared by every run." The provider's
 * side (a local Messages API server counting the requests open at once) is the measure. AI calls
 * made from inside a `loop:` body, a `loop_group` body or a gate's `on_reject` rework go through the
 * same adapter, so they must take the same provider slots as a top-level prompt node.
 */

let home: TempHome;
let server: AnthropicServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
  await server?.close();
  server = undefined;
});

/** Every answer is held a while so that calls which are allowed to overlap do overlap. */
async function slowServer() {
  server = await startAnthropicServer(() => ({
    kind: 'stream',
    blocks: [{ type: 'text', text: 'done <promise>DONE</promise>' }],
    usage: { input_tokens: 3, output_tokens: 1 },
    delayMs: 700,
  }));
  writeFileSync(home.paths.config, 'concurrency:\n  providers:\n    anthropic: 1\n');
  return startSupervisor(home, { limit: 4, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test' } });
}

it('keeps a provider limit of 1 for two independent `loop:` nodes whose bodies are prompts', async () => {
  const sup = await slowServer();
  const loop = (id: string) => `  - id: ${id}\n    loop:\n      prompt: "go ${id}"\n      until: DONE\n      max_iterations: 2\n`;
  const run = await sup.createRun(`name: two-ai-loops\ndescription: two AI loops side by side\nprovider: anthropic\nnodes:\n${loop('l1')}${loop('l2')}`);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect(server!.requests).toHaveLength(2);
  // The provider saw both calls at once: the limit of 1 was not applied to loop bodies.
  expect(server!.maxConcurrent()).toBe(1);
});

it('keeps a provider limit of 1 for two independent AI body nodes of one `loop_group`', async () => {
  const sup = await slowServer();
  const run = await sup.createRun(`name: ai-group
description: a loop_group with two independent prompts in its body
provider: anthropic
nodes:
  - id: g
    loop_group:
      max_iterations: 1
      until: DONE
      nodes:
        - id: p1
          prompt: "first"
        - id: p2
          prompt: "second"
`);
  const end = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(server!.requests).toHaveLength(2);
  expect(end.status).toBe('completed');
  expect(server!.maxConcurrent()).toBe(1);
});

it("keeps a provider limit of 1 for a gate's prompt rework, run while another run's call is open", async () => {
  const sup = await slowServer();
  const store = home.openStore();
  const gated = await sup.createRun(`name: ai-gate
description: a gate whose rework is a prompt
provider: anthropic
nodes:
  - id: review
    approval:
      message: "Approve the plan?"
      on_reject:
        prompt: "Revise the plan: $REJECTION_REASON"
        max_attempts: 2
`);
  await sup.waitForStatus(gated.id, ['paused']);
  // The rework (a call held 700 ms) and another run's prompt are asked for at the same moment.
  await requestGateAnswer(store, gated.id, 'reject', { reason: 'too vague' });
  const other = await sup.createRun(`name: one-call\ndescription: one prompt\nprovider: anthropic\nnodes:\n  - id: ask\n    prompt: "hello"\n`);
  expect((await sup.waitForStatus(other.id, ['completed', 'failed'])).status).toBe('completed');
  await waitFor(async () => ((await sup.events(gated.id)).filter((e) => e.event_type === 'workflow_paused').length === 2 ? true : undefined), {
    what: 'the gate to ask again after its rework',
  });
  expect(server!.requests).toHaveLength(2);
  expect(server!.maxConcurrent()).toBe(1);
});
