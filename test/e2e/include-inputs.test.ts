import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** A block that prints its inputs from bash bodies in several quoting contexts. */
const block = `name: echo-block
description: "Building block, included with include: — prints its inputs"
inputs:
  label: { required: true }
  topic: { required: true }
  suffix: { default: "-end" }
returns: joined
nodes:
  - id: bare
    bash: printf '%s' $INPUTS.label
  - id: joined
    depends_on: [bare]
    bash: |
      printf '%s|%s' "$bare.output" '$INPUTS.topic$INPUTS.suffix'
`;

it("runs a workflow that includes a block with with: inputs, and the values reach the block's nodes as data", { timeout: 120_000 }, async () => {
  const server = await startServer(home);
  const pwned = join(home.home, 'pwned');
  const label = `it's "$(touch ${pwned})" \`touch ${pwned}\`\nline two`;
  await writeHomeWorkflow(home, 'echo-block', block);
  await writeHomeWorkflow(
    home,
    'uses-block',
    `name: uses-block
description: includes echo-block with a fixed label and the run's topic
inputs:
  topic: { required: true }
nodes:
  - id: blk
    include: echo-block
    with:
      label: ${JSON.stringify(label)}
      topic: "topic=$INPUTS.topic"
  - id: after
    depends_on: [blk]
    bash: printf '%s' "$blk.output"
`,
  );
  const topic = `'; touch ${pwned}; '`;
  const { runId } = await startRun(server.url, 'uses-block', { inputs: { topic } });

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to finish', timeoutMs: 60_000 });
  const output = (id: string) => events.find((e) => e.event_type === 'node_completed' && e.step_name === id)?.data.node_output;
  expect(run.status, JSON.stringify(events.filter((e) => e.event_type === 'node_failed').map((e) => e.data.error))).toBe('completed');
  expect(output('blk__bare')).toBe(label);
  expect(output('blk__joined')).toBe(`${label}|topic=${topic}-end`);
  expect(output('after')).toBe(`${label}|topic=${topic}-end`);
  expect(existsSync(pwned)).toBe(false);
});

it('lists a block on its own, and reports and refuses a workflow whose include misses a required input', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'echo-block', block);
  await writeHomeWorkflow(
    home,
    'misses-input',
    `name: misses-input
description: includes echo-block without its topic
nodes:
  - id: blk
    include: echo-block
    with: { label: x }
`,
  );
  const res = await fetch(`${server.url}/api/workflows?cwd=${encodeURIComponent(home.home)}`);
  const listing = (await res.json()) as { workflows: { workflow: { name: string } }[]; errors?: { error: string }[] };
  // The block lists on its own; the workflow that misses an input does not, with the reason.
  expect(listing.workflows.map((w) => w.workflow.name)).toContain('echo-block');
  expect(listing.workflows.map((w) => w.workflow.name)).not.toContain('misses-input');
  expect(JSON.stringify(listing.errors)).toContain("missing required input 'topic'");
  const run = await fetch(`${server.url}/api/workflows/misses-input/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ conversationId: 'c1', message: 'go' }),
  });
  expect(run.status).toBeGreaterThanOrEqual(400);
  expect(run.status).toBeLessThan(500);
  expect(await run.text()).toContain("missing required input 'topic'");
});
