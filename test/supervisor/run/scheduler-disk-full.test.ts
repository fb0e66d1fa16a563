import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { integrityOf, mountSmallDisk, smallDisksAvailable } from '../../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { capturingLogger } from '../process/timed-supervisor.js';
import { ScriptedHandlers, startScheduler } from './scheduler-harness.js';

/**
 * A scheduling pass whose records a full disk refuses (CAIRN_HOME on a real tmpfs, mounted as
 * root). The run ended `failed` ("Scheduling failed: database or disk is full") once space
 * returned; a full database must only delay it: the pass keeps its decisions and writes them
 * when it can, and the run ends as it would have.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const yaml = `name: skip-after
description: a node, then one its condition skips
nodes:
  - id: a
    bash: "true"
  - id: b
    depends_on: [a]
    when: "$a.output == 'never'"
    bash: "true"
`;

describe.skipIf(!smallDisksAvailable)('a scheduling pass on a full disk', () => {
  it('keeps the decisions the disk refused and writes them once space returns: the run completes', async () => {
    const disk = mountSmallDisk(home, home.home, 8);
    const handlers = new ScriptedHandlers(() => 'hold');
    const { log, lines } = capturingLogger();
    const { run, store } = await startScheduler(home, yaml, handlers, { logFor: () => log });
    await waitFor(() => handlers.held.length === 1, { what: 'a to start' });
    await disk.fill({ database: home.paths.database });

    // `a` ends: the pass that follows decides `b` skipped, and its record meets the full disk.
    handlers.held[0]!.end({ status: 'completed', output: 'done' });
    await waitFor(() => lines.some((l) => /full/.test(String((l.err as { message?: string } | undefined)?.message))), {
      what: 'the skip record to be refused',
    });
    expect((await store.getRun(run.id))?.status).toBe('running');

    await disk.free();
    const ended = await waitFor(async () => {
      const now = await store.getRun(run.id);
      return now && now.status !== 'running' ? now : undefined;
    }, { what: 'the run to end' });
    expect(ended.status).toBe('completed');
    expect(ended.error).toBeNull();
    const events = await store.listRunEvents(run.id);
    expect(events.filter((e) => e.step_name === 'b').map((e) => e.event_type)).toEqual(['node_skipped']);
    expect(events.at(-1)!.event_type).toBe('workflow_completed');
    expect(integrityOf(home.paths.database)).toBe('ok');
  });
});
