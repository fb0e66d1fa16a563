import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
beforeEach(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

async function status(runId: string, statuses: string[]) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 30_000 });
}

const workflows = {
  gate: `name: gate
description: a gate nobody answers
nodes:
  - id: review
    approval: { message: "ok?" }
  - id: after
    depends_on: [review]
    bash: echo after
`,
  talk: `name: talk
description: an interactive loop nobody answers
interactive: true
nodes:
  - id: chat
    loop:
      bash: echo turn
      until: DONE
      max_iterations: 3
      interactive: true
      gate_message: more?
`,
};

for (const [name, op, reason] of [
  ['gate', 'cancel', 'Cancelled by user'],
  ['gate', 'abandon', 'Abandoned by user'],
  ['talk', 'cancel', 'Cancelled by user'],
  ['talk', 'abandon', 'Abandoned by user'],
] as const) {
  it(`${op} of a run paused at ${name === 'gate' ? 'an approval gate' : 'an interactive loop'} closes the suspended attempt with a terminal record`, async () => {
    await writeHomeWorkflow(home, name, workflows[name]);
    const { runId } = await startRun(server.url, name);
    const paused = await status(runId, ['paused', 'failed', 'completed']);
    expect(paused.run.status).toBe('paused');
    const suspended = paused.events.find((e) => e.event_type === 'node_suspended')!;
    const res = await fetch(`${server.url}/api/workflows/runs/${runId}/${op}`, { method: 'POST' });
    expect(res.status).toBe(200);
    const { events } = await status(runId, ['cancelled']);
    const closed = events.filter((e) => e.step_name === suspended.step_name && e.event_type === 'node_failed');
    expect(closed).toHaveLength(1);
    expect(closed[0]!.data.execution).toMatchObject({
      attempt: { id: suspended.data.execution.attempt.id },
      invocation: { id: suspended.data.execution.invocation.id },
      lifecycle: { status: 'failed', failureKind: 'cancelled', error: reason },
    });
    // The closing record comes before the run's terminal event, which is the run's last.
    expect(events.at(-1)!.event_type).toBe('workflow_cancelled');
  });
}
