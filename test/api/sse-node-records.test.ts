import { afterEach, beforeEach, expect, it } from 'vitest';
import { listen, makeTestApp } from '../helpers/app.js';
import { openSse } from '../helpers/sse.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * Contract, Where facts are exposed: "live emitter and JSONL transcript | shared metadata,
 * excluding output, diagnostics, full session id". A `node_suspended` row has no `dag_node`
 * status, so it goes out as a `workflow_event`: with its public metadata only.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('the live stream never carries the diagnostics of a suspended node record', async () => {
  const { app } = await makeTestApp(home);
  const url = await listen(app);
  const sup = await startSupervisor(home);
  const stream = await openSse(`${url}/api/stream/__dashboard__`);
  const run = await sup.createRun(`name: talk
description: an interactive loop
interactive: true
nodes:
  - id: chat
    loop:
      bash: echo turn
      until: FINISHED
      max_iterations: 5
      interactive: true
      gate_message: "What next?"
`);
  await sup.waitForStatus(run.id, ['paused', 'completed', 'failed']);
  const suspendedRow = (await sup.events(run.id)).find((e) => e.event_type === 'node_suspended' && e.step_name === 'chat')!;
  expect(suspendedRow.data.execution.diagnostics).toMatchObject({ iteration: 1 });
  await stream.until((frames) => frames.some((f) => f.id === suspendedRow.seq));
  const frame = stream.frames.find((f) => f.id === suspendedRow.seq)!.data;
  stream.close();
  const text = JSON.stringify(frame);
  expect(text).not.toContain('"diagnostics"');
  expect(frame.data?.execution?.diagnostics).toBeUndefined();
  expect(frame.data?.iteration).toBeUndefined();
});
