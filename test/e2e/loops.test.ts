import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
let marks: string;
async function openServer(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home);
}
/** A folder of its own for each test's marks, so no test sees another's. */
async function freshMarks(): Promise<void> {
  marks = await mkdtemp(join(home.home, 'marks-'));
}

const HOSTILE = `it's "quoted" $(touch PWNED) \`touch PWNED2\` $HOME
second line`;

async function finished(runId: string, statuses = ['completed', 'failed', 'cancelled']) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 45_000 });
}

function post(runId: string, op: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.url}/api/workflows/runs/${runId}/${op}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
  });
}

const bodyRecords = (events: Record<string, any>[], path: string, type = 'node_completed') =>
  events.filter((e) => e.step_name === path && e.event_type === type).map((e) => e.data.execution);

// Each test writes its own workflow, starts its own run and keeps its marks in a folder of its
// own: one server serves them all.
describe('on one server', () => {
  beforeAll(openServer);
  afterAll(() => home.close());
  beforeEach(freshMarks);

  it('a loop stops at its `until` signal: one invocation per iteration with loopPath and iteration, the output is the last iteration’s without <promise> tags, and $LOOP_PREV_OUTPUT reaches the body as hostile text, never as code', async () => {
    await writeHomeWorkflow(home, 'signal', `name: signal
description: a loop that signals on its third iteration
nodes:
  - id: fix
    loop:
      bash: |
        echo x >> "${marks}/count"
        printf '%s' "$LOOP_PREV_OUTPUT" > "${marks}/prev-$(wc -l < "${marks}/count" | tr -d ' ')"
        n=$(wc -l < "${marks}/count" | tr -d ' ')
        if [ "$n" -ge 3 ]; then echo "done at $n <promise>DONE</promise>"; else printf '%s\\n' "$ARGUMENTS"; fi
      until: DONE
      max_iterations: 5
      fresh_context: true
  - id: report
    depends_on: [fix]
    bash: 'printf "%s" "report: $fix.output"'
`);
    const { runId } = await startRun(server.url, 'signal', { message: HOSTILE });
    const { run, events } = await finished(runId);
    expect(run.status).toBe('completed');
    const iterations = bodyRecords(events, 'fix/body');
    expect(iterations.map((r) => r.invocation.loopPath)).toEqual([1, 2, 3].map((iteration) => [{ groupId: 'fix', iteration }]));
    expect(iterations.map((r) => r.diagnostics)).toEqual([1, 2, 3].map((iteration) => ({ iteration, maxIterations: 5 })));
    expect(new Set(iterations.map((r) => r.invocation.id)).size).toBe(3);
    const loop = bodyRecords(events, 'fix')[0];
    expect(loop).toMatchObject({ node: { id: 'fix', kind: 'loop' }, diagnostics: { loopIterations: 3, maxIterations: 5 } });
    expect(events.find((e) => e.step_name === 'fix' && e.event_type === 'node_completed')!.data.node_output).toBe('done at 3 DONE');
    expect(events.find((e) => e.step_name === 'report' && e.event_type === 'node_completed')!.data.node_output).toBe('report: done at 3 DONE');
    expect(events.filter((e) => e.step_name === 'fix' && e.event_type.startsWith('loop_iteration_')).map((e) => [e.event_type, e.data.iteration])).toEqual([
      ['loop_iteration_started', 1], ['loop_iteration_completed', 1],
      ['loop_iteration_started', 2], ['loop_iteration_completed', 2],
      ['loop_iteration_started', 3], ['loop_iteration_completed', 3],
    ]);
    // The previous iteration's output arrives byte for byte; nothing in it ran.
    expect(await readFile(join(marks, 'prev-1'), 'utf8')).toBe('');
    expect(await readFile(join(marks, 'prev-2'), 'utf8')).toBe(HOSTILE);
    expect(existsSync(join(marks, 'PWNED')) || existsSync(join(marks, 'PWNED2'))).toBe(false);
  });

  it('a loop stops when `until_bash` exits 0, checked after each iteration', async () => {
    await writeHomeWorkflow(home, 'check', `name: check
description: a loop whose shell check says done after two iterations
nodes:
  - id: grow
    loop:
      bash: echo tick >> "${marks}/ticks" && wc -l < "${marks}/ticks" | tr -d ' '
      until_bash: 'test "$(wc -l < "${marks}/ticks")" -ge 2'
      max_iterations: 4
`);
    const { runId } = await startRun(server.url, 'check');
    const { run, events } = await finished(runId);
    expect(run.status).toBe('completed');
    expect(await readFile(join(marks, 'ticks'), 'utf8')).toBe('tick\ntick\n');
    expect(events.find((e) => e.step_name === 'grow' && e.event_type === 'node_completed')!.data.execution.diagnostics).toEqual({ loopIterations: 2, maxIterations: 4 });
    expect(events.find((e) => e.step_name === 'grow' && e.event_type === 'node_completed')!.data.node_output).toBe('2');
    const checks = events.filter((e) => e.step_name === 'grow/until_bash' && (e.event_type === 'node_completed' || e.event_type === 'node_failed'));
    expect(checks.map((e) => [e.event_type, e.data.execution.invocation.loopPath[0].iteration])).toEqual([['node_failed', 1], ['node_completed', 2]]);
    expect(events.filter((e) => e.event_type === 'loop_iteration_completed').map((e) => e.data.stop)).toEqual([null, 'until_bash']);
  });

  it('a loop that reaches max_iterations without its stop condition fails with failureKind max_iterations', async () => {
    await writeHomeWorkflow(home, 'never', `name: never
description: a loop that never completes
nodes:
  - id: spin
    loop:
      bash: echo spin >> "${marks}/spins"; echo not yet
      until: DONE
      max_iterations: 3
  - id: after
    depends_on: [spin]
    bash: echo never
`);
    const { runId } = await startRun(server.url, 'never');
    const { run, events } = await finished(runId);
    expect(run.status).toBe('failed');
    expect(await readFile(join(marks, 'spins'), 'utf8')).toBe('spin\nspin\nspin\n');
    const failed = events.find((e) => e.step_name === 'spin' && e.event_type === 'node_failed')!.data.execution;
    expect(failed.lifecycle).toMatchObject({ status: 'failed', failureKind: 'max_iterations' });
    expect(failed.lifecycle.error).toContain('max_iterations (3)');
    expect(failed.diagnostics).toEqual({ loopIterations: 3, maxIterations: 3 });
    expect(events.find((e) => e.step_name === 'after')?.event_type).toBe('node_skipped');
  });

  it('an interactive loop pauses after each iteration: approve continues with the comment as $LOOP_USER_INPUT (hostile text stays text), reject stops the run', async () => {
    await writeHomeWorkflow(home, 'talk', `name: talk
description: an interactive loop
interactive: true
nodes:
  - id: chat
    loop:
      bash: |
        echo x >> "${marks}/turns"
        printf '%s' "$LOOP_USER_INPUT" > "${marks}/input-$(wc -l < "${marks}/turns" | tr -d ' ')"
        echo "turn"
      until: FINISHED
      max_iterations: 5
      interactive: true
      gate_message: "What next?"
`);
    const { runId } = await startRun(server.url, 'talk');
    const paused = await finished(runId, ['paused', 'completed', 'failed', 'cancelled']);
    expect(paused.run.status).toBe('paused');
    expect(paused.run.metadata.approval).toMatchObject({ type: 'interactive_loop', nodeId: 'chat', iteration: 1, message: 'What next?' });
    const suspended = paused.events.find((e) => e.step_name === 'chat' && e.event_type === 'node_suspended')!;
    expect(suspended.data.execution.lifecycle).toEqual({ status: 'suspended', point: 'interactive_loop' });

    expect((await post(runId, 'approve', { comment: HOSTILE })).status).toBe(200);
    const again = await waitFor(async () => {
      const detail = await getRun(server.url, runId);
      return detail.run.status === 'paused' && detail.run.metadata.approval.iteration === 2 ? detail : undefined;
    }, { what: 'the second pause' });
    expect(await readFile(join(marks, 'input-1'), 'utf8')).toBe('');
    expect(await readFile(join(marks, 'input-2'), 'utf8')).toBe(HOSTILE);
    expect(existsSync(join(marks, 'PWNED'))).toBe(false);
    // The loop's attempt is one attempt throughout: the pause after iteration 2 continues it.
    const pauses = again.events.filter((e) => e.step_name === 'chat' && e.event_type === 'node_suspended');
    expect(pauses.map((e) => e.data.execution.attempt.id)).toEqual([suspended.data.execution.attempt.id, suspended.data.execution.attempt.id]);

    expect((await post(runId, 'reject', { reason: 'enough' })).status).toBe(200);
    const { run, events } = await finished(runId);
    expect(run.status).toBe('cancelled');
    expect(await readFile(join(marks, 'turns'), 'utf8')).toBe('x\nx\n');
    expect(events.find((e) => e.step_name === 'chat' && e.event_type === 'node_failed')!.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled' });
  });

  it('a loop_group runs its body as a sub-DAG per iteration: body records carry loopPath [{groupId, iteration}], $LOOP_PREV reads the previous iteration, upstream outputs are readable, until_bash stops it', async () => {
    await writeHomeWorkflow(home, 'group', `name: group
description: a counted loop group
nodes:
  - id: seed
    bash: echo seeded
  - id: countdown
    depends_on: [seed]
    loop_group:
      max_iterations: 5
      until_bash: 'test "$(wc -l < "${marks}/counter")" -ge 3'
      nodes:
        - id: tick
          bash: 'echo tick >> "${marks}/counter"; printf "%s" "$seed.output-$(wc -l < "${marks}/counter" | tr -d " ")"'
        - id: tock
          depends_on: [tick]
          bash: 'printf "%s|prev=%s" "$tick.output" "$LOOP_PREV.tock.output"'
  - id: after
    depends_on: [countdown]
    bash: 'printf "%s" "after: $countdown.output"'
`);
    const { runId } = await startRun(server.url, 'group');
    const { run, events } = await finished(runId);
    expect(run.status).toBe('completed');
    expect(await readFile(join(marks, 'counter'), 'utf8')).toBe('tick\ntick\ntick\n');
    for (const path of ['countdown/tick', 'countdown/tock']) {
      expect(bodyRecords(events, path).map((r) => r.invocation.loopPath)).toEqual([1, 2, 3].map((iteration) => [{ groupId: 'countdown', iteration }]));
    }
    expect(events.filter((e) => e.step_name === 'countdown/tock' && e.event_type === 'node_completed').map((e) => e.data.node_output)).toEqual([
      'seeded-1|prev=', 'seeded-2|prev=seeded-1|prev=', 'seeded-3|prev=seeded-2|prev=seeded-1|prev=',
    ]);
    const group = events.find((e) => e.step_name === 'countdown' && e.event_type === 'node_completed')!;
    expect(group.data.execution).toMatchObject({ node: { id: 'countdown', kind: 'loop_group' }, diagnostics: { loopIterations: 3, maxIterations: 5 } });
    expect(events.find((e) => e.step_name === 'after' && e.event_type === 'node_completed')!.data.node_output).toBe(
      'after: seeded-3|prev=seeded-2|prev=seeded-1|prev=',
    );
  });

  it('a loop_group whose body never satisfies `until` fails with max_iterations; a failed body node fails the group', async () => {
    await writeHomeWorkflow(home, 'groups', `name: groups
description: two loop groups that fail
nodes:
  - id: spin
    loop_group:
      max_iterations: 2
      until: DONE
      nodes:
        - id: a
          bash: echo a >> "${marks}/spin"; echo not done
  - id: broken
    loop_group:
      max_iterations: 3
      until: DONE
      nodes:
        - id: b
          bash: echo b >> "${marks}/broken"; exit 4
        - id: c
          depends_on: [b]
          bash: echo never >> "${marks}/broken-c"
`);
    const { runId } = await startRun(server.url, 'groups');
    const { run, events } = await finished(runId);
    expect(run.status).toBe('failed');
    expect(await readFile(join(marks, 'spin'), 'utf8')).toBe('a\na\n');
    const spin = events.find((e) => e.step_name === 'spin' && e.event_type === 'node_failed')!.data.execution;
    expect(spin.lifecycle.failureKind).toBe('max_iterations');
    expect(await readFile(join(marks, 'broken'), 'utf8')).toBe('b\n');
    expect(existsSync(join(marks, 'broken-c'))).toBe(false);
    const skipped = events.find((e) => e.step_name === 'broken/c')!.data.execution;
    expect(skipped).toMatchObject({ lifecycle: { status: 'skipped', reason: 'trigger_rule' }, invocation: { loopPath: [{ groupId: 'broken', iteration: 1 }] } });
    const broken = events.find((e) => e.step_name === 'broken' && e.event_type === 'node_failed')!.data.execution;
    expect(broken.lifecycle.error).toContain("body node 'b' failed");
    expect(events.find((e) => e.step_name === 'broken' && e.event_type === 'loop_iteration_failed')?.data.iteration).toBe(1);
  });

  it('docs/workflows.md: the count-to-three loop and the countdown loop_group examples run as the page says', async () => {
    const example = (name: string) => readFile(new URL(`../fixtures/workflows/examples/workflows/${name}.yaml`, import.meta.url), 'utf8');
    await writeHomeWorkflow(home, 'count-to-three', await example('count-to-three'));
    await writeHomeWorkflow(home, 'countdown', await example('countdown'));
    const loop = await finished((await startRun(server.url, 'count-to-three')).runId);
    expect(loop.run.status).toBe('completed');
    expect(loop.events.filter((e) => e.step_name === 'count/body' && e.event_type === 'node_completed')).toHaveLength(3);
    expect(loop.events.find((e) => e.step_name === 'report' && e.event_type === 'node_completed')!.data.node_output).toBe('finished with: DONE');
    const { runId } = await startRun(server.url, 'countdown');
    const group = await finished(runId);
    expect(group.run.status).toBe('completed');
    expect(await readFile(join(home.paths.scratch(runId), 'counter'), 'utf8')).toBe('tick\ntick\ntick\n');
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a server of its own.
describe('on a server of its own', () => {
  beforeEach(async () => {
    await openServer();
    await freshMarks();
  });
  afterEach(() => home.close());

  it('loop iterations survive kill -9 of the supervisor: a recorded iteration is never run again, the interrupted one is', async () => {
    await writeHomeWorkflow(home, 'crashy', `name: crashy
description: a loop whose second iteration is cut short by a crash
nodes:
  - id: work
    loop:
      bash: |
        echo "prev=$LOOP_PREV_OUTPUT" >> "${marks}/runs"
        n=$(wc -l < "${marks}/runs" | tr -d ' ')
        if [ "$n" -eq 2 ] && [ ! -e "${marks}/crashed" ]; then touch "${marks}/in-2"; sleep 30; fi
        echo "out-$n"
      until_bash: 'test "$(wc -l < "${marks}/runs")" -ge 4'
      max_iterations: 5
`);
    const { runId } = await startRun(server.url, 'crashy');
    await waitFor(async () => existsSync(join(marks, 'in-2')) || undefined, { what: 'iteration 2 to begin', timeoutMs: 30_000 });
    const supervisorPid = await server.pid('supervisor');
    process.kill(supervisorPid, 'SIGKILL');
    await import('node:fs/promises').then((fs) => fs.writeFile(join(marks, 'crashed'), ''));
    const { run, events } = await finished(runId);
    expect(run.status).toBe('completed');
    // Iteration 1 ran once; iteration 2 ran twice (cut short, then again with the same input); then 3.
    expect((await readFile(join(marks, 'runs'), 'utf8')).split('\n').filter(Boolean)).toEqual(['prev=', 'prev=out-1', 'prev=out-1', 'prev=out-3']);
    const completed = bodyRecords(events, 'work/body');
    expect(completed.map((r) => r.invocation.loopPath[0].iteration)).toEqual([1, 2, 3]);
    const interrupted = events.find((e) => e.step_name === 'work/body' && e.event_type === 'node_failed')!.data.execution;
    expect(interrupted.invocation.loopPath).toEqual([{ groupId: 'work', iteration: 2 }]);
    // The interrupted iteration ran again as the next attempt of the same invocation.
    expect(completed[1].invocation.id).toBe(interrupted.invocation.id);
    expect(events.find((e) => e.step_name === 'work' && e.event_type === 'node_completed')!.data.execution.diagnostics).toEqual({ loopIterations: 3, maxIterations: 5 });
  });
});
