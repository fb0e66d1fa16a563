import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor } from '../helpers/supervisor.js';
import { peakOverlap } from '../helpers/overlap.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * README (configuration): `CAIRN_MAX_CONCURRENCY` is the "Global limit on node attempts in
 * flight"; src/supervisor/run/limits.ts: "a limit of 10 means 10 processes at most, never
 * 11". Body nodes of a loop_group are node attempts of their own (each has its node_started
 * record and its own process), and independent ones run together.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});


it('runs the independent bash body nodes of a loop_group at most 2 at a time under a global limit of 2', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-limits-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  const spans = join(dir, 'spans.log');
  const sup = await startSupervisor(home, { limit: 2 });
  const body = Array.from({ length: 4 }, (_, i) => `        - id: b${i}\n          bash: 'a=$(date +%s%N); sleep 0.3; echo "$a $(date +%s%N)" >> "${spans}"'\n`).join('');
  const run = await sup.createRun(`name: group
description: four independent body nodes
nodes:
  - id: g
    loop_group:
      max_iterations: 1
      until_bash: 'true'
      nodes:
${body}`);
  const end = await sup.waitForStatus(run.id, ['completed', 'failed']);
  expect(end.status).toBe('completed');
  const events = await sup.events(run.id);
  expect(events.filter((e) => e.event_type === 'node_started' && /^g\/b\d$/.test(e.step_name ?? ''))).toHaveLength(4);
  const rows = (await readFile(spans, 'utf8')).trim().split('\n').map((l) => l.split(' ').map(Number) as [number, number]);
  expect(rows).toHaveLength(4);
  expect(peakOverlap(rows)).toBeLessThanOrEqual(2);
});
