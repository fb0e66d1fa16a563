import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunRow, startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { lastRunEvent, openRoom, resumeResult, typesAt, type Room } from '../harness/room.js';

/**
 * The run jobs' decisions (start, cancel, abandon, resume, delete, wake, child_run_settled), each
 * queued as the API queues it and carried out by a real supervisor: what the handler answers
 * (the job's result), what it records, and that a job delivered a second time changes nothing.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

const oneNode = 'name: one\ndescription: one node\nnodes:\n  - id: a\n    bash: printf a\n';

describe('start_run', () => {
  it('starts a pending run under this supervisor and records workflow_started with its inputs', async () => {
    const run = await room.start(`name: started
description: inputs
inputs:
  who: { default: world }
nodes:
  - id: a
    bash: printf "$INPUTS_who"
`);
    const done = await room.settle(run.id);
    expect(done.status).toBe('completed');
    const start = (await room.sup.store.listRunJobs(run.id)).find((j) => j.kind === 'start_run')!;
    expect(start).toMatchObject({ status: 'done', result: 'started' });
    const started = (await room.events(run.id)).find((e) => e.event_type === 'workflow_started')!;
    expect(started.data).toMatchObject({ workflowName: 'started', supervisorId: room.sup.supervisor.id, inputs: ['who'] });
  });

  it('delivered again after the run ended: ignored, and nothing runs a second time', async () => {
    const held = room.held('once');
    const run = await room.start(`name: again\ndescription: x\nnodes:\n  - id: a\n    bash: "${held.bash}"\n`);
    await held.started();
    // Delivered again while the run is driven here: it is left alone.
    expect((await room.job('start_run', run.id)).result).toBe('already running');
    await held.release();
    expect((await room.settle(run.id)).status).toBe('completed');
    expect((await room.job('start_run', run.id)).result).toBe('ignored: run is completed');
    expect(held.runs()).toBe(1);
    expect((await room.events(run.id)).filter((e) => e.event_type === 'workflow_started')).toHaveLength(1);
  });

  it('records the keys the workflow file had that Cairn ignores, as workflow_parse_warnings', async () => {
    const run = await room.start(oneNode, { metadata: { parse_warnings: ["unknown key 'colour' ignored"] } });
    await room.settle(run.id);
    const warned = (await room.events(run.id)).find((e) => e.event_type === 'workflow_parse_warnings');
    expect(warned?.data).toMatchObject({ warnings: ["unknown key 'colour' ignored"] });
  });

  it('a pending run whose cancel was claimed first (by another supervisor) is never started, and ends cancelled', async () => {
    // Its own home: the jobs are queued and claimed before this test's supervisor exists.
    const home = await makeTempHome();
    try {
      const store = home.openStore();
      const marker = join(home.home, 'ran');
      const run = await createRunRow(store, `name: early\ndescription: x\nnodes:\n  - id: a\n    bash: touch '${marker}'\n`);
      await store.enqueueJob('cancel_run', run.id);
      // Another supervisor claims both (the cancel's claim records the request), then is gone.
      expect((await store.claimJob('sup-gone', 60_000))?.kind).toBe('start_run');
      expect((await store.claimJob('sup-gone', 60_000))?.kind).toBe('cancel_run');
      expect(await store.getCancelRequestedAt(run.id)).not.toBeNull();
      await store.requeueJobsOf(['sup-gone']);
      const sup = await startSupervisor(home, { id: 'sup-next' });
      const done = await sup.waitForStatus(run.id, ['cancelled', 'completed', 'failed']);
      expect(done.status).toBe('cancelled');
      const jobs = await waitFor(async () => {
        const all = await store.listRunJobs(run.id);
        return all.every((j) => j.status === 'done') ? all : undefined;
      }, { what: 'both jobs to be done' });
      expect(jobs.map((j) => [j.kind, j.result])).toEqual([
        ['start_run', 'ignored: the run is being cancelled'],
        ['cancel_run', 'cancelled'],
      ]);
      expect(existsSync(marker)).toBe(false);
      expect((await sup.events(run.id)).map((e) => e.event_type)).toEqual(['workflow_cancelled']);
    } finally {
      await home.close();
    }
  });
});

describe('cancel_run', () => {
  it('a running run: its running node is stopped, nothing after it starts, and the run ends cancelled "Cancelled by user"', async () => {
    const held = room.held('long');
    const run = await room.start(`name: cancel-me
description: x
nodes:
  - id: a
    bash: "${held.bash}"
  - id: b
    depends_on: [a]
    bash: printf b
`);
    await held.started();
    const job = await room.job('cancel_run', run.id);
    expect(job.result).toBe('cancelled');
    expect((await room.sup.store.getRun(run.id))?.status).toBe('cancelled');
    const events = await room.events(run.id);
    expect(typesAt(events, 'a')).toEqual(['node_started', 'node_failed']);
    expect(events.find((e) => e.event_type === 'node_failed' && e.step_name === 'a')!.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled' });
    expect(typesAt(events, 'b')).toEqual([]);
    expect(lastRunEvent(events)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'Cancelled by user' } });
  });

  it('a paused run: the gate’s waiting attempt is closed as cancelled in the same step', async () => {
    const run = await room.start('name: gated\ndescription: x\nnodes:\n  - id: review\n    approval: { message: "ok?" }\n');
    await room.pausedAtGate(run.id);
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(typesAt(events, 'review')).toEqual(['node_started', 'node_suspended', 'node_failed']);
    const closed = events.find((e) => e.event_type === 'node_failed')!;
    const suspended = events.find((e) => e.event_type === 'node_suspended')!;
    expect(closed.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
    expect(closed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'cancelled', error: 'Cancelled by user' });
    expect(lastRunEvent(events)?.event_type).toBe('workflow_cancelled');
  });

  it('delivered twice: the second finds the run cancelled and records nothing more', async () => {
    const run = await room.start('name: gated\ndescription: x\nnodes:\n  - id: review\n    approval: { message: "ok?" }\n');
    await room.pausedAtGate(run.id);
    await room.job('cancel_run', run.id);
    const before = (await room.events(run.id)).length;
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    expect(await room.events(run.id)).toHaveLength(before);
  });

  it('a run that already completed is left as it is', async () => {
    const run = await room.start(oneNode);
    await room.settle(run.id);
    expect((await room.job('cancel_run', run.id)).result).toBe('ignored: run is completed');
    expect((await room.sup.store.getRun(run.id))?.status).toBe('completed');
  });

  it('reaches the child run a workflow node is waiting for: the child is cancelled too', async () => {
    const held = room.held('child-work');
    await room.workflow('slow-child', `name: slow-child\ndescription: x\nnodes:\n  - id: work\n    bash: "${held.bash}"\n`);
    const run = await room.start('name: parent\ndescription: x\nnodes:\n  - id: child\n    workflow: slow-child\n');
    await held.started();
    const child = (await room.sup.store.listOpenDescendants(run.id))[0]!;
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    expect((await room.settle(child.id)).status).toBe('cancelled');
    const childCancel = (await room.sup.store.listRunJobs(child.id)).find((j) => j.kind === 'cancel_run')!;
    expect(childCancel.payload).toEqual({ cascadeFrom: run.id });
    expect(held.runs()).toBe(1);
  });
});

describe('abandon_run', () => {
  it('a failed run ends cancelled "Abandoned by user", and can no longer be resumed', async () => {
    const run = await room.start('name: fails\ndescription: x\nnodes:\n  - id: a\n    bash: exit 3\n');
    expect((await room.settle(run.id)).status).toBe('failed');
    expect((await room.job('abandon_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(lastRunEvent(events)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'Abandoned by user' } });
    const resume = await room.sup.store.requestRunContinuation({ runId: run.id, kind: 'resume_run', payload: {}, fromStatuses: ['failed', 'paused'] });
    expect(resume).toMatchObject({ queued: false, run: { status: 'cancelled' } });
  });

  it('a paused run: its gate’s attempt is closed with the abandon’s reason, and no answer is taken after it', async () => {
    const run = await room.start('name: gated\ndescription: x\nnodes:\n  - id: review\n    approval: { message: "ok?" }\n');
    await room.pausedAtGate(run.id);
    expect((await room.job('abandon_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    const closed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'review')!;
    expect(closed.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled', error: 'Abandoned by user' });
    const late = await room.sup.store.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: {} });
    expect(late).toMatchObject({ queued: false, run: { status: 'cancelled' } });
  });

  it('a completed run is not abandoned', async () => {
    const run = await room.start(oneNode);
    await room.settle(run.id);
    expect((await room.job('abandon_run', run.id)).result).toBe('ignored: run is completed');
  });
});

describe('resume_run', () => {
  const flaky = (fixed: string, before: string) => `name: flaky
description: x
nodes:
  - id: first
    bash: "echo x >> '${before}'; printf first"
  - id: second
    depends_on: [first]
    bash: "if [ -e '${fixed}' ]; then printf fixed; else echo broken >&2; exit 4; fi"
`;

  it('runs a failed run again from where it failed: the completed node is not run again, the failed one is', async () => {
    const fixed = join(room.home.home, 'fixed');
    const before = join(room.home.home, 'first.log');
    const run = await room.start(flaky(fixed, before));
    const failed = await room.settle(run.id);
    expect(failed.status).toBe('failed');
    await mkdir(fixed);
    expect(resumeResult(await room.resume(run.id))).toEqual({ outcome: 'resumed' });
    expect((await room.settle(run.id, ['completed', 'failed'])).status).toBe('completed');
    const events = await room.events(run.id);
    const resumed = events.find((e) => e.event_type === 'workflow_resumed')!;
    expect(resumed.data).toMatchObject({ resumedFrom: 'failed', supervisorId: room.sup.supervisor.id, error: failed.error });
    expect(typesAt(events, 'second')).toEqual(['node_started', 'node_failed', 'node_started', 'node_completed']);
    expect(events.filter((e) => e.event_type === 'node_started' && e.step_name === 'first')).toHaveLength(1);
    expect(readFileSync(before, 'utf8')).toBe('x\n');
  });

  it('delivered again once the run is running or has completed: ignored', async () => {
    const run = await room.start(oneNode);
    await room.settle(run.id);
    expect(resumeResult(await room.job('resume_run', run.id))).toEqual({ outcome: 'ignored', reason: 'run is completed' });
    expect((await room.events(run.id)).some((e) => e.event_type === 'workflow_resumed')).toBe(false);
  });

  it('a raised budget asked with the resume becomes the run’s', async () => {
    const run = await room.start('name: fails\ndescription: x\nnodes:\n  - id: a\n    bash: exit 3\n');
    await room.settle(run.id);
    expect(resumeResult(await room.resume(run.id, { budgetUsd: 2.5 }))).toEqual({ outcome: 'resumed' });
    const after = await room.settle(run.id, ['failed']);
    expect(after.metadata.budget).toEqual({ usd: 2.5 });
  });
});

describe('resume_run of a fan-out’s failed items (rerunNodes)', () => {
  it('resumes a completed run: only the items that failed run again, and the node’s output is joined anew', async () => {
    const fixed = join(room.home.home, 'fixed');
    const ran = join(room.home.home, 'items.log');
    await room.workflow('item', `name: item
description: x
nodes:
  - id: do
    bash: 'echo "$ARGUMENTS" >> "${ran}"; case "$ARGUMENTS" in bad*) [ -e "${fixed}" ] || exit 1;; esac; printf "done-$ARGUMENTS"'
`);
    const run = await room.start(`name: fan
description: x
nodes:
  - id: each
    workflow: item
    fan_out: { items: '["a","bad","c"]', join: all_done, mode: child_runs }
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    await mkdir(fixed);
    const job = await room.job('resume_run', run.id, { rerunNodes: ['each'] });
    expect(resumeResult(job)).toEqual({ outcome: 'resumed' });
    expect((await room.settle(run.id, ['completed', 'failed'])).status).toBe('completed');
    const events = await room.events(run.id);
    expect(events.find((e) => e.event_type === 'workflow_resumed')?.data).toMatchObject({ resumedFrom: 'completed', rerunNodes: ['each'] });
    const outputs = events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'each').map((e) => JSON.parse(e.data.node_output));
    expect(outputs.at(-1)).toEqual(['done-a', 'done-bad', 'done-c']);
    // a and c ran once; only bad ran again.
    expect(readFileSync(ran, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['a', 'bad', 'bad', 'c']);
  });

  it('without rerunNodes a completed run is not resumed', async () => {
    const run = await room.start(oneNode);
    await room.settle(run.id);
    const refused = await room.sup.store.requestRunContinuation({ runId: run.id, kind: 'resume_run', payload: {}, fromStatuses: ['failed', 'paused'] });
    expect(refused).toMatchObject({ queued: false, run: { status: 'completed' } });
  });
});

describe('delete_run', () => {
  it('removes a finished run with its folder and jobs, and leaves the directory it worked in', async () => {
    const project = join(room.home.home, 'project');
    await mkdir(project);
    const run = await room.start(oneNode, { workingPath: project });
    await room.settle(run.id);
    await mkdir(room.home.paths.runFolder(run.id), { recursive: true });
    await room.sup.store.enqueueJob('delete_run', run.id);
    await waitFor(async () => (await room.sup.store.getRun(run.id)) === undefined, { what: 'the run to be deleted' });
    expect(existsSync(room.home.paths.runFolder(run.id))).toBe(false);
    expect(await room.sup.store.listRunJobs(run.id)).toEqual([]);
    expect(existsSync(project)).toBe(true);
  });

  it('refuses a run that has not ended', async () => {
    const held = room.held('busy');
    const run = await room.start(`name: busy\ndescription: x\nnodes:\n  - id: a\n    bash: "${held.bash}"\n`);
    await held.started();
    expect((await room.job('delete_run', run.id)).result).toBe('ignored: run is running');
    await held.release();
    expect((await room.settle(run.id)).status).toBe('completed');
  });
});

describe('delete_run of a paused run', () => {
  it('is refused: a run waiting for an answer is not finished', async () => {
    const run = await room.start('name: gated\ndescription: x\nnodes:\n  - id: review\n    approval: { message: "ok?" }\n');
    await room.pausedAtGate(run.id);
    expect((await room.job('delete_run', run.id)).result).toBe('ignored: run is paused');
    expect((await room.sup.store.getRun(run.id))?.status).toBe('paused');
  });
});

describe('wake_run', () => {
  it('leaves alone a run driven here, and one that has ended', async () => {
    const held = room.held('driven');
    const run = await room.start(`name: driven\ndescription: x\nnodes:\n  - id: a\n    bash: "${held.bash}"\n`);
    await held.started();
    expect((await room.job('wake_run', run.id)).result).toBe('ignored: the run is driven here');
    await held.release();
    await room.settle(run.id);
    expect((await room.job('wake_run', run.id)).result).toBe('ignored: run is completed');
    expect(held.runs()).toBe(1);
  });
});

describe('child_run_settled', () => {
  it('news of a child nobody waits for changes nothing on the parent', async () => {
    const held = room.held('parent-work');
    const run = await room.start(`name: p\ndescription: x\nnodes:\n  - id: a\n    bash: "${held.bash}"\n`);
    await held.started();
    const news = { childRunId: 'no-such-child', status: 'completed' };
    expect((await room.job('child_run_settled', run.id, news)).result).toBe('ignored: the node reads the child itself');
    await held.release();
    await room.settle(run.id);
    expect((await room.job('child_run_settled', run.id, news)).result).toBe('ignored: parent is completed');
    expect((await room.sup.store.getRun(run.id))?.status).toBe('completed');
  });
});
