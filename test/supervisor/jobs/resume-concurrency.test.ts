import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OnOverlap } from '../../../src/shared/run-concurrency.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { openRoom, resumeResult, type Room } from '../harness/room.js';

/**
 * A resume takes a place under its workflow's concurrency policy, as a new start does: a failed
 * run holds none, so resuming it while another run of its key holds the only place waits
 * (queue), is refused (refuse) or cancels that run (cancel_other), never runs beside it.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

/** A check that fails until the `ok` mark exists, then a gate (a run paused there holds its place). */
const keyedYaml = (marks: string) => `name: keyed
description: a check, then a gate
nodes:
  - id: check
    bash: "test -e '${marks}/ok'"
  - id: review
    depends_on: [check]
    approval: { message: "ok?" }
`;

/** Run A failed on its check; run B (same key, limit 1) was started after and now holds the place at its gate. */
async function failedThenHolder(onOverlap: OnOverlap): Promise<{ failed: Run; holder: Run }> {
  const marks = join(room.home.home, 'marks');
  const metadata = { concurrency: { key: 'k', limit: 1, on_overlap: onOverlap } };
  const failed = await room.start(keyedYaml(marks), { metadata });
  expect((await room.settle(failed.id)).status).toBe('failed');
  await writeFile(join(marks, 'ok'), '');
  const holder = await room.start(keyedYaml(marks), { metadata });
  await room.pausedAtGate(holder.id);
  return { failed, holder };
}

it('queue: the resumed run waits pending for the place, saying why, and resumes once the holder ends', async () => {
  const { failed, holder } = await failedThenHolder('queue');
  const job = await room.resume(failed.id);
  expect(resumeResult(job)).toEqual({ outcome: 'waiting', key: 'k', position: 1, waitingFor: [holder.id] });
  const waiting = (await room.sup.store.getRun(failed.id))!;
  expect(waiting.status).toBe('pending');
  expect(waiting.error).toBeNull();
  expect(waiting.metadata.concurrency).toEqual({ key: 'k', limit: 1, on_overlap: 'queue', waiting_for: [holder.id], position: 1 });
  expect((await room.sup.store.getRun(holder.id))!.status).toBe('paused');

  await room.answer(holder.id, 'approve_run');
  expect((await room.settle(holder.id)).status).toBe('completed');
  const resumed = await room.pausedAtGate(failed.id);
  expect(resumed.metadata.concurrency).toEqual({ key: 'k', limit: 1, on_overlap: 'queue' });
  // It went on from where it failed: one resume boundary, the check run again and passing.
  const runLevel = (await room.events(failed.id)).filter((e) => e.event_type.startsWith('workflow_')).map((e) => e.event_type);
  expect(runLevel).toEqual(['workflow_started', 'workflow_failed', 'workflow_resumed', 'workflow_paused']);
  expect(await room.timeline(failed.id)).toContain('node_completed:check');
});

it('refuse: the resume is refused with the start refusal text, and the run is left failed as it was', async () => {
  const { failed, holder } = await failedThenHolder('refuse');
  const before = (await room.sup.store.getRun(failed.id))!;
  const answer = await room.sup.store.requestRunContinuation({ runId: failed.id, kind: 'resume_run', payload: {}, fromStatuses: ['failed'] });
  expect(answer).toMatchObject({ queued: false, refused: { holders: [holder.id] } });
  expect(!answer.queued && answer.refused?.refused).toContain(`(on_overlap: refuse), and ${holder.id} holds its one place`);
  expect(await room.sup.store.getRun(failed.id)).toEqual(before);
  expect((await room.sup.store.listRunJobs(failed.id)).map((j) => j.kind)).toEqual(['start_run']);

  // A resume already queued (an automatic one) that finds the place taken is refused the same way.
  const job = await room.job('resume_run', failed.id);
  const refused = resumeResult(job);
  expect(refused).toMatchObject({ outcome: 'refused', key: 'k', holders: [holder.id] });
  expect(refused.outcome === 'refused' && refused.reason).toMatch(/^Workflow 'keyed' allows 1 run at a time/);
  expect(await room.sup.store.getRun(failed.id)).toEqual(before);
});

it('cancel_other: the run holding the place is cancelled and the resumed run takes it once that has ended', async () => {
  const { failed, holder } = await failedThenHolder('cancel_other');
  const job = await room.resume(failed.id);
  expect(resumeResult(job)).toEqual({ outcome: 'waiting', key: 'k', position: 1, waitingFor: [holder.id] });
  expect((await room.settle(holder.id)).status).toBe('cancelled');
  const resumed = await room.pausedAtGate(failed.id);
  expect(resumed.metadata.concurrency).toEqual({ key: 'k', limit: 1, on_overlap: 'cancel_other' });
});
