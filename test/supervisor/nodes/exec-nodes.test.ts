import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * `bash` nodes' decisions as the exec handler and the scheduler make them (the worker runs the
 * program): what a failure records and does to dependants, a retry as a new attempt of the same
 * invocation, a timeout, and a node whose body cannot be prepared.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

describe('a failing program', () => {
  it('fails the node with its exit code and stderr; its dependants are skipped and the run fails', async () => {
    const run = await room.start(`name: fails
description: x
nodes:
  - id: build
    bash: "echo partial; echo 'no compiler' >&2; exit 3"
  - id: ship
    depends_on: [build]
    bash: printf ship
`);
    const done = await room.settle(run.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/build/);
    const events = await room.events(run.id);
    const failed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'build')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'exec_failed' });
    expect(JSON.stringify(failed.data)).toContain('no compiler');
    expect(typesAt(events, 'ship')).toEqual(['node_skipped']);
  });

  it('with retry on all errors: runs again as a new attempt of the same invocation, and completes', async () => {
    const mark = join(room.home.home, 'tried');
    const run = await room.start(`name: flaky
description: x
nodes:
  - id: net
    bash: "if [ -e '${mark}' ]; then printf ok; else touch '${mark}'; exit 1; fi"
    retry: { max_attempts: 2, delay_ms: 1000, on_error: all }
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    const started = events.filter((e) => e.event_type === 'node_started' && e.step_name === 'net');
    expect(started).toHaveLength(2);
    expect(new Set(started.map((e) => e.data.execution.invocation.id)).size).toBe(1);
    expect(new Set(started.map((e) => e.data.execution.attempt.id)).size).toBe(2);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'net')?.data.node_output).toBe('ok');
  });

  it('without a retry: one attempt, never run again', async () => {
    const log = join(room.home.home, 'runs.log');
    const run = await room.start(`name: once\ndescription: x\nnodes:\n  - id: a\n    bash: "echo x >> '${log}'; exit 1"\n`);
    expect((await room.settle(run.id)).status).toBe('failed');
    expect(typesAt(await room.events(run.id), 'a')).toEqual(['node_started', 'node_failed']);
    expect(readFileSync(log, 'utf8')).toBe('x\n');
  });
});

describe('timeout', () => {
  it('a program past its timeout is stopped and the node fails as timed out', async () => {
    const held = room.held('slow');
    const run = await room.start(`name: slow
description: x
nodes:
  - id: slow
    bash: "${held.bash}"
    timeout: 500
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'slow')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ failureKind: 'timeout' });
    expect(held.runs()).toBe(1);
  });
});

describe('trigger rules and conditions', () => {
  it('a node whose condition is false is skipped and its dependants still decide by their own rule', async () => {
    const run = await room.start(`name: branches
description: x
nodes:
  - id: pick
    bash: printf left
  - id: left
    depends_on: [pick]
    when: "$pick.output == 'left'"
    bash: printf L
  - id: right
    depends_on: [pick]
    when: "$pick.output == 'right'"
    bash: printf R
  - id: join
    depends_on: [left, right]
    trigger_rule: one_success
    bash: printf "joined $left.output"
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'right')).toEqual(['node_skipped']);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'join')?.data.node_output).toBe('joined L');
  });
});
