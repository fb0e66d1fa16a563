import { expect, it } from 'vitest';
import type { NewRunEvent } from '../../../src/store/schemas/event.js';
import { LIVE_CAP_BYTES, LiveOutput } from '../../../src/worker/nodes/exec/live-output.js';
import { waitFor } from '../../helpers/wait-for.js';

/** The live output of a running exec node: batched, capped per attempt, nothing once it ended. */

const facts = { runId: 'r', conversationId: 'c', path: 'each[0]/a', nodeId: 'a', attemptId: 'att' };

function recorder() {
  const events: NewRunEvent[] = [];
  return { events, append: async (batch: NewRunEvent[]) => void events.push(...batch) };
}

it('writes one batch per interval, runs of one stream joined, a multibyte character split across chunks kept whole', async () => {
  const { events, append } = recorder();
  const live = new LiveOutput(facts, append, 20);
  const euro = Buffer.from('€');
  live.push('stdout', Buffer.concat([Buffer.from('a line\n'), euro.subarray(0, 1)]));
  live.push('stdout', Buffer.concat([euro.subarray(1), Buffer.from('\n')]));
  live.push('stderr', Buffer.from('careful\n'));
  await waitFor(() => events.length === 2, { what: 'the batch' });
  expect(events.map((e) => [e.event_type, e.step_name, e.data])).toEqual([
    ['node_output', 'each[0]/a', { node_id: 'a', attempt_id: 'att', stream: 'stdout', text: 'a line\n€\n' }],
    ['node_output', 'each[0]/a', { node_id: 'a', attempt_id: 'att', stream: 'stderr', text: 'careful\n' }],
  ]);
  await live.stop();
});

it('sends at most the cap, then says so once and nothing more', async () => {
  const { events, append } = recorder();
  const live = new LiveOutput(facts, append, 20);
  live.push('stdout', Buffer.alloc(LIVE_CAP_BYTES - 10, 0x61));
  live.push('stdout', Buffer.alloc(100, 0x62));
  await waitFor(() => events.some((e) => e.data.truncated === true), { what: 'the cap notice' });
  live.push('stdout', Buffer.from('more\n'));
  await live.stop();
  const texts = events.filter((e) => typeof e.data.text === 'string').map((e) => e.data.text as string);
  expect(texts.join('').length).toBe(LIVE_CAP_BYTES);
  expect(events.at(-1)!.data).toMatchObject({ truncated: true, limit_bytes: LIVE_CAP_BYTES });
  expect(events.filter((e) => e.data.truncated === true)).toHaveLength(1);
});

it('writes nothing for a node that ended within one interval, and drops a batch the store refuses', async () => {
  const { events, append } = recorder();
  const quick = new LiveOutput(facts, append, 1_000);
  quick.push('stdout', Buffer.from('done\n'));
  await quick.stop();
  expect(events).toEqual([]);

  let tries = 0;
  const refusing = new LiveOutput(facts, async () => {
    tries += 1;
    throw new Error('database or disk is full');
  }, 10);
  refusing.push('stdout', Buffer.from('x\n'));
  await waitFor(() => tries === 1, { what: 'the refused batch' });
  await expect(refusing.stop()).resolves.toBeUndefined();
});
