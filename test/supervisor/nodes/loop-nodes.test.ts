import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSupervisor } from '../../helpers/supervisor.js';
import { waitFor } from '../../helpers/wait-for.js';
import { lastRunEvent, openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * `loop` and `loop_group` nodes driven by the scheduler a real supervisor builds: how many
 * iterations run, what each records, how the loop ends (signal, check, maximum, a failed body),
 * and what a cancel and a take-over do to a loop under way.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom({ id: 'sup-loops' });
});
afterEach(async () => {
  await room.home.close();
});

/** A bash body that counts its runs in `<home>/<name>` and prints the count, then `then` from the count `at` on. */
function counting(name: string, at: number, then: string): { bash: string; runs(): number } {
  const file = join(room.home.home, name);
  return {
    bash: `echo x >> '${file}'; n=$(wc -l < '${file}'); if [ $n -ge ${at} ]; then echo \\"$n ${then}\\"; else echo \\"$n\\"; fi`,
    runs: () => readFileSync(file, 'utf8').split('\n').filter(Boolean).length,
  };
}

describe('loop', () => {
  it('runs its body until the signal, each iteration at <loop>/body, and completes with the last output, tags removed', async () => {
    const body = counting('tally', 3, '<promise>DONE</promise>');
    const run = await room.start(`name: to-three
description: x
nodes:
  - id: count
    loop: { bash: "${body.bash}", until: DONE, max_iterations: 5 }
  - id: report
    depends_on: [count]
    bash: printf "[%s]" "$count.output"
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(body.runs()).toBe(3);
    const events = await room.events(run.id);
    expect(typesAt(events, 'count')).toEqual(['node_started', 'node_completed']);
    expect(typesAt(events, 'count/body')).toEqual(Array(3).fill(['node_started', 'node_completed']).flat());
    const iterations = events.filter((e) => e.step_name === 'count/body' && e.event_type === 'node_started');
    expect(iterations.map((e) => e.data.execution.invocation.loopPath)).toEqual([1, 2, 3].map((iteration) => [{ groupId: 'count', iteration }]));
    expect(events.filter((e) => e.event_type === 'loop_iteration_completed').map((e) => e.data.stop ?? null)).toEqual([null, null, 'signal']);
    const done = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'count')!;
    expect(done.data.node_output.trim()).toBe('3 DONE');
    expect(done.data.execution.diagnostics).toMatchObject({ loopIterations: 3, maxIterations: 5 });
    const report = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'report')!;
    expect(report.data.node_output).toBe('[3 DONE]');
  });

  it('fails with max_iterations when no check ever says done, and its dependants do not run', async () => {
    const body = counting('never', 99, 'never');
    const run = await room.start(`name: endless
description: x
nodes:
  - id: spin
    loop: { bash: "${body.bash}", until: DONE, max_iterations: 2 }
  - id: after
    depends_on: [spin]
    bash: printf after
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    expect(body.runs()).toBe(2);
    const events = await room.events(run.id);
    const failed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'spin')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'max_iterations' });
    expect(typesAt(events, 'after').filter((t) => t === 'node_started')).toEqual([]);
  });

  it('asks until_bash only after an iteration that gave no signal, and records the check at <loop>/until_bash', async () => {
    const tally = join(room.home.home, 'checked');
    const run = await room.start(`name: checked
description: x
nodes:
  - id: grow
    loop:
      bash: "echo x >> '${tally}'; printf grew"
      until_bash: "test $(wc -l < '${tally}') -ge 2"
      max_iterations: 4
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    // One failed check (not done yet), then one that passed.
    expect(typesAt(events, 'grow/until_bash')).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
    expect(events.filter((e) => e.event_type === 'loop_iteration_completed').map((e) => e.data.stop ?? null)).toEqual([null, 'until_bash']);
  });

  it('hands each iteration the previous one’s output as $LOOP_PREV_OUTPUT', async () => {
    const file = join(room.home.home, 'prev');
    const run = await room.start(`name: chain
description: x
nodes:
  - id: build
    loop:
      bash: 'echo x >> "${file}"; n=$(wc -l < "${file}"); if [ $n -ge 3 ]; then echo DONE; else echo "$n after [$LOOP_PREV_OUTPUT]"; fi'
      until: DONE
      max_iterations: 4
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const outputs = (await room.events(run.id))
      .filter((e) => e.event_type === 'node_completed' && e.step_name === 'build/body')
      .map((e) => (e.data.node_output as string).trim());
    expect(outputs).toEqual(['1 after []', '2 after [1 after []]', 'DONE']);
  });

  it('an iteration whose body fails fails the loop at once', async () => {
    const body = counting('boom', 2, 'x');
    const run = await room.start(`name: boom
description: x
nodes:
  - id: try
    loop: { bash: "${body.bash}; test $n -lt 2", until: DONE, max_iterations: 5 }
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    expect(body.runs()).toBe(2);
    const events = await room.events(run.id);
    expect(events.some((e) => e.event_type === 'loop_iteration_failed' && e.step_name === 'try')).toBe(true);
    expect(typesAt(events, 'try')).toEqual(['node_started', 'node_failed']);
  });

  it('a cancel stops the running iteration and no other starts', async () => {
    const held = room.held('iteration');
    const run = await room.start(`name: held-loop
description: x
nodes:
  - id: work
    loop: { bash: "${held.bash}", until: DONE, max_iterations: 5 }
`);
    await held.started();
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(held.runs()).toBe(1);
    expect(typesAt(events, 'work')).toEqual(['node_started', 'node_failed']);
    expect(events.find((e) => e.event_type === 'node_failed' && e.step_name === 'work')!.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled' });
    expect(lastRunEvent(events)?.event_type).toBe('workflow_cancelled');
  });

  it('taken over by another supervisor mid-loop: completed iterations never run again, the cut one runs again', async () => {
    const tally = join(room.home.home, 'takeover-tally');
    const second = join(room.home.home, 'second-started');
    const gate = join(room.home.home, 'second-go');
    // Iteration 2 waits for the test; the signal comes at iteration 3.
    const bash = `echo x >> '${tally}'; n=$(wc -l < '${tally}'); if [ $n -eq 2 ]; then touch '${second}'; while [ ! -e '${gate}' ]; do sleep 0.02; done; fi; if [ $n -ge 3 ]; then echo DONE; else echo $n; fi`;
    const run = await room.start(`name: durable
description: x
nodes:
  - id: durable
    loop: { bash: "${bash}", until: DONE, max_iterations: 5 }
`);
    await waitFor(() => existsSync(second), { what: 'iteration 2 to start' });
    await room.sup.stop();
    const next = await startSupervisor(room.home, { id: 'sup-next' });
    expect((await next.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
    const events = await next.events(run.id);
    const iterationOf = (e: { data: Record<string, any> }) => e.data.execution.invocation.loopPath[0].iteration;
    const body = events.filter((e) => e.step_name === 'durable/body');
    // Iteration 1 ran once; the cut iteration 2 ran again under the next supervisor (its third
    // run of the body, which gave the signal).
    expect(body.filter((e) => e.event_type === 'node_started').map(iterationOf)).toEqual([1, 2, 2]);
    expect(body.filter((e) => e.event_type === 'node_completed').map(iterationOf)).toEqual([1, 2]);
    expect(readFileSync(tally, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(typesAt(events, 'durable').at(-1)).toBe('node_completed');
  });
});

describe('interactive loop', () => {
  it('asks before ending on a signal given by its first iteration; a bare approve ends it', async () => {
    const run = await room.start(`name: eager
description: x
nodes:
  - id: chat
    loop:
      bash: echo DONE
      until: DONE
      max_iterations: 5
      interactive: true
      gate_message: "Done already?"
`);
    await room.pausedAtGate(run.id);
    await room.answer(run.id, 'approve_run');
    expect((await room.settle(run.id)).status).toBe('completed');
    const bodies = (await room.events(run.id)).filter((e) => e.event_type === 'node_completed' && e.step_name === 'chat/body');
    expect(bodies).toHaveLength(1);
  });

  it('pauses after an unfinished iteration; the approval’s comment is the next iteration’s $LOOP_USER_INPUT', async () => {
    const run = await room.start(`name: talk
description: x
nodes:
  - id: chat
    loop:
      bash: 'if [ "$LOOP_USER_INPUT" = "stop" ]; then echo DONE; else echo "heard [$LOOP_USER_INPUT]"; fi'
      until: DONE
      max_iterations: 5
      interactive: true
      gate_message: "More?"
`);
    const paused = await room.pausedAtGate(run.id);
    expect(paused.metadata.approval).toMatchObject({ type: 'interactive_loop', nodeId: 'chat', iteration: 1 });
    expect((await room.answer(run.id, 'approve_run', { comment: 'go on' })).result).toBe('continued');
    await room.pausedAtGate(run.id, 2);
    await room.answer(run.id, 'approve_run', { comment: 'stop' });
    // The iteration that answered the input gave the signal: the loop ends there, with no
    // further approval (as in the upstream).
    expect((await room.settle(run.id)).status).toBe('completed');
    const outputs = (await room.events(run.id))
      .filter((e) => e.event_type === 'node_completed' && e.step_name === 'chat/body')
      .map((e) => (e.data.node_output as string).trim());
    expect(outputs).toEqual(['heard []', 'heard [go on]', 'DONE']);
    // One attempt of the loop spans the pauses.
    const loopRecords = (await room.events(run.id)).filter((e) => e.step_name === 'chat' && e.event_type.startsWith('node_'));
    expect(new Set(loopRecords.map((e) => e.data.execution.attempt.id)).size).toBe(1);
  });
});

describe('loop_group', () => {
  it('runs its sub-graph once per iteration, in dependency order, at <group>/<id>, until the check passes', async () => {
    const counter = join(room.home.home, 'counter');
    const run = await room.start(`name: group
description: x
nodes:
  - id: seed
    bash: printf seed
  - id: rounds
    depends_on: [seed]
    loop_group:
      max_iterations: 5
      until_bash: "test $(wc -l < '${counter}') -ge 2"
      nodes:
        - id: tick
          bash: "echo tick >> '${counter}'; printf tick-$seed.output"
        - id: tock
          depends_on: [tick]
          bash: printf "tock after $tick.output"
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    const bodies = events
      .filter((e) => e.event_type === 'node_completed' && (e.step_name === 'rounds/tick' || e.step_name === 'rounds/tock'))
      .map((e) => `${e.step_name}#${e.data.execution.invocation.loopPath[0].iteration}`);
    expect(bodies).toEqual(['rounds/tick#1', 'rounds/tock#1', 'rounds/tick#2', 'rounds/tock#2']);
    const group = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'rounds')!;
    // The group's output is the last body node's of the last iteration.
    expect(group.data.node_output).toBe('tock after tick-seed');
    expect(group.data.execution.node.kind).toBe('loop_group');
  });

  it('a failed body node fails the iteration and the group; the body nodes after it do not run', async () => {
    const run = await room.start(`name: group-fails
description: x
nodes:
  - id: rounds
    loop_group:
      max_iterations: 3
      until: DONE
      nodes:
        - id: breaks
          bash: exit 5
        - id: never
          depends_on: [breaks]
          bash: printf never
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'rounds/breaks')).toEqual(['node_started', 'node_failed']);
    expect(typesAt(events, 'rounds/never').filter((t) => t !== 'node_skipped')).toEqual([]);
    expect(typesAt(events, 'rounds').at(-1)).toBe('node_failed');
  });
});
