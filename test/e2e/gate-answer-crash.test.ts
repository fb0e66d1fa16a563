import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the supervisor just after a gate was answered: the run was moved back to running
 * and the work after the answer is under way. The answer must never be undone (asked again) nor
 * lost (its comment).
 */

let home: TempHome;
let server: RunningServer;
let marks: string;
beforeEach(async () => {
  home = await makeTempHome();
  marks = join(home.home, 'marks');
  await mkdir(marks);
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

async function statusIn(runId: string, statuses: string[], timeoutMs = 60_000) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs });
}

function post(runId: string, op: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.url}/api/workflows/runs/${runId}/${op}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
  });
}

it('an interactive loop approved, whose next iteration is cut short by kill -9: the approval and its comment survive, the iteration runs again with the comment and the loop pauses after it', async () => {
  await writeHomeWorkflow(home, 'talk', `name: talk
description: an interactive loop whose second iteration is cut short by a crash
interactive: true
nodes:
  - id: chat
    loop:
      bash: |
        echo x >> "${marks}/turns"
        n=$(wc -l < "${marks}/turns" | tr -d ' ')
        printf '%s' "$LOOP_USER_INPUT" > "${marks}/input-$n"
        if [ "$n" -eq 2 ] && [ ! -e "${marks}/crashed" ]; then touch "${marks}/in-2"; sleep 30; fi
        echo "turn-$n"
      until: FINISHED
      max_iterations: 5
      interactive: true
      gate_message: "What next?"
`);
  const { runId } = await startRun(server.url, 'talk');
  const paused = await statusIn(runId, ['paused', 'completed', 'failed', 'cancelled']);
  expect(paused.run.status).toBe('paused');
  expect(paused.run.metadata.approval).toMatchObject({ type: 'interactive_loop', iteration: 1 });

  expect((await post(runId, 'approve', { comment: 'keep going' })).status).toBe(200);
  await waitFor(() => existsSync(join(marks, 'in-2')) || undefined, { what: 'iteration 2 to begin' });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  await writeFile(join(marks, 'crashed'), '');

  const again = await statusIn(runId, ['paused', 'completed', 'failed', 'cancelled']);
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(again.run.status).toBe('paused');
  // Paused after iteration 2 (run again), not asking again after iteration 1.
  expect(again.run.metadata.approval).toMatchObject({ type: 'interactive_loop', iteration: 2 });
  expect((await readFile(join(marks, 'turns'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(3);
  expect(await readFile(join(marks, 'input-2'), 'utf8')).toBe('keep going');
  expect(await readFile(join(marks, 'input-3'), 'utf8')).toBe('keep going');
  const received = again.events.filter((e) => e.event_type === 'approval_received');
  expect(received).toHaveLength(1);

  // The gate after iteration 2 is a live gate: reject ends the run.
  expect((await post(runId, 'reject', { reason: 'enough' })).status).toBe(200);
  const { run } = await statusIn(runId, ['completed', 'failed', 'cancelled']);
  expect(run.status).toBe('cancelled');
}, 120_000);

it('a gate approved, whose next node is cut short by kill -9: the gate stays approved (never asked again) and the run completes', async () => {
  await writeHomeWorkflow(home, 'gated', `name: gated
description: a gate, then a node cut short by a crash
nodes:
  - id: review
    approval: { message: "ok?", capture_response: true }
  - id: after
    depends_on: [review]
    bash: |
      if [ ! -e "${marks}/crashed" ]; then touch "${marks}/in-after"; sleep 30; fi
      printf 'got %s' "$review.output"
`);
  const { runId } = await startRun(server.url, 'gated');
  expect((await statusIn(runId, ['paused', 'completed', 'failed'])).run.status).toBe('paused');
  expect((await post(runId, 'approve', { comment: 'ship it' })).status).toBe(200);
  await waitFor(() => existsSync(join(marks, 'in-after')) || undefined, { what: 'the node after the gate to begin' });
  const supervisorPid = await server.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');
  await writeFile(join(marks, 'crashed'), '');

  const { run, events } = await statusIn(runId, ['paused', 'completed', 'failed', 'cancelled']);
  expect(await server.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');
  expect(events.filter((e) => e.event_type === 'workflow_paused')).toHaveLength(1);
  expect(events.filter((e) => e.step_name === 'review' && e.event_type === 'node_completed')).toHaveLength(1);
  expect(events.find((e) => e.step_name === 'after' && e.event_type === 'node_completed')!.data.node_output).toBe('got ship it');
}, 120_000);
