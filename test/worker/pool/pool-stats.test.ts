import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { makeExecHarness, type ExecHarness } from '../exec-harness.js';

let h: ExecHarness;
beforeEach(async () => {
  // Two threads of two slots: the fifth attempt has to wait for a slot.
  h = await makeExecHarness({ maxThreads: 2, concurrentTasksPerWorker: 2 });
});
afterEach(async () => {
  await h.home.close();
});

describe('worker pool stats', () => {
  it('counts threads (started with the pool), attempts running in them and attempts waiting for a slot', async () => {
    expect(h.pool.stats()).toEqual({ threads: 2, active: 0, queued: 0 });
    const gate = join(h.home.home, 'gate');
    const tasks = [1, 2, 3, 4, 5].map(() => h.task(`while [ ! -e '${gate}' ]; do sleep 0.02; done`));
    const results = tasks.map((task) => h.pool.runAttempt(task));

    await waitFor(() => h.notices.filter((n) => n.type === 'spawned').length === 4, { what: 'four spawns' });
    expect(h.pool.stats()).toEqual({ threads: 2, active: 4, queued: 1 });

    await writeFile(gate, '');
    expect((await Promise.all(results)).every((r) => r.status === 'completed')).toBe(true);
    expect(h.pool.stats()).toMatchObject({ active: 0, queued: 0 });
  });

  it('cancels an attempt still waiting for a slot without ever starting it', async () => {
    const gate = join(h.home.home, 'gate');
    const busy = [1, 2, 3, 4].map(() => h.pool.runAttempt(h.task(`while [ ! -e '${gate}' ]; do sleep 0.02; done`)));
    await waitFor(() => h.notices.filter((n) => n.type === 'spawned').length === 4, { what: 'four spawns' });
    const waiting = h.task('echo should-not-run', { nodeId: 'waiting' });
    const controller = new AbortController();
    const result = h.pool.runAttempt(waiting, { signal: controller.signal });
    expect(h.pool.stats().queued).toBe(1);

    controller.abort();
    await writeFile(gate, '');

    expect(await result).toMatchObject({ status: 'not_started' });
    await Promise.all(busy);
    expect(h.notices.some((n) => 'attemptId' in n && n.attemptId === waiting.attempt.id)).toBe(false);
    expect(await h.events('waiting')).toEqual([]);
  });
});
