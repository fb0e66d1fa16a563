import { afterEach, beforeEach, expect, it } from 'vitest';
import { attemptEndedEvent, attemptStartedEvent } from '../../../src/records/index.js';
import { CairnError } from '../../../src/shared/errors.js';
import { nodeAttemptRef } from '../../../src/supervisor/nodes/attempt-records.js';
import type { AttemptOutcome, NodeAttempt } from '../../../src/supervisor/run/node-handler.js';
import { afterStartRecorded } from '../../../src/supervisor/run/started-attempt.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ScriptedHandlers, startScheduler } from './scheduler-harness.js';

/**
 * A node that records its own start and then meets a store fault (what an in-run fan-out, a child
 * run or a loop does when the disk fills in their middle, as `cairn stress --disk-full` found):
 * its attempt is kept and continued once writes go through, never left started without an end
 * beside a second attempt.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const yaml = `name: composite
description: one node that records its own start
nodes:
  - id: c
    bash: "true"
`;

const diskFull = () => new CairnError('STORE_UNAVAILABLE', 'Disk full: Cairn could not append events', { reason: 'disk_full' });

type Under = Awaited<ReturnType<typeof startScheduler>>;

/** The scheduler under test, for handlers that run before `startScheduler` has returned it. */
function laterUnder() {
  let resolve!: (u: Under) => void;
  const promise = new Promise<Under>((r) => (resolve = r));
  return { promise, set: resolve };
}

/** The composite pattern: the start recorded by the handler, then the rest under afterStartRecorded; the first time, the rest meets a full disk. */
function compositeHandler(under: Promise<Under>) {
  let calls = 0;
  return async (attempt: NodeAttempt): Promise<AttemptOutcome> => {
    calls += 1;
    const { store, run } = await under;
    const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
    if (!attempt.continued) await store.appendEvents([attemptStartedEvent(ref)]);
    return afterStartRecorded(async () => {
      if (calls === 1) throw diskFull();
      await store.appendEvents([attemptEndedEvent(ref, { status: 'completed', output: { text: 'done' } })]);
      return { status: 'completed', output: 'done' };
    });
  };
}

it('continues the attempt whose start was recorded: one start, one end, the same attempt, counted once', async () => {
  const later = laterUnder();
  const handlers = new ScriptedHandlers(compositeHandler(later.promise));
  const under = await startScheduler(home, yaml, handlers);
  later.set(under);
  const { store, run, table } = under;
  const ended = await waitFor(async () => {
    const now = await store.getRun(run.id);
    return now && now.status !== 'running' ? now : undefined;
  }, { what: 'the run to end' });
  expect(ended.status, ended.error ?? undefined).toBe('completed');

  expect(handlers.started.map((a) => [a.identity.attempt.number, a.continued ?? false])).toEqual([
    [1, false],
    [1, true],
  ]);
  expect(handlers.started[1]!.identity.attempt.id).toBe(handlers.started[0]!.identity.attempt.id);
  const own = (await store.listRunEvents(run.id)).filter((e) => e.step_name === 'c');
  expect(own.map((e) => e.event_type)).toEqual(['node_started', 'node_completed']);
  const ids = own.map((e) => (e.data as { execution: { attempt: { id: string } } }).execution.attempt.id);
  expect(ids[0]).toBe(ids[1]);
  expect(table.get('c')!.attempts).toBe(1);
});

it('puts off an attempt whose start the store refused as no attempt: the next one is attempt 1, new', async () => {
  let calls = 0;
  const later = laterUnder();
  const handlers = new ScriptedHandlers(async (attempt) => {
    calls += 1;
    if (calls === 1) throw diskFull();
    const { store, run } = await later.promise;
    const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
    await store.appendEvents([attemptStartedEvent(ref), attemptEndedEvent(ref, { status: 'completed', output: { text: 'ok' } })]);
    return { status: 'completed', output: 'ok' };
  });
  const under = await startScheduler(home, yaml, handlers);
  later.set(under);
  await waitFor(async () => (await under.store.getRun(under.run.id))?.status === 'completed', { what: 'the run to complete' });
  expect(handlers.started.map((a) => [a.identity.attempt.number, a.continued ?? false])).toEqual([
    [1, false],
    [1, false],
  ]);
  expect(handlers.started[1]!.identity.attempt.id).not.toBe(handlers.started[0]!.identity.attempt.id);
});
