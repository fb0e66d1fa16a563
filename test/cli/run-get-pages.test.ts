import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/cli/api-client.js';
import { readRunOutputs } from '../../src/cli/run-output.js';
import type { NewRunEvent } from '../../src/store/schemas/event.js';
import type { Run } from '../../src/store/schemas/run.js';
import { runEvent, seedRun } from '../api/fixtures.js';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { runCliInProcess } from './cli-harness.js';

/**
 * `cairn run get` and the outputs `cairn workflow run` prints read a run's events page by page
 * from the real API: a run longer than one page (2000 events) is shown whole, including what
 * only its last page holds.
 */

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
});
afterEach(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runCliInProcess([...argv, '--url', url], { env: { NO_COLOR: '1' } });

/**
 * A run of `retries` failed attempts of node `flaky` (two events each), then `late` completing
 * with an output: `late`'s events come after the first 2000.
 */
async function seedLongRun(retries: number): Promise<Run> {
  const run = await seedRun(t.store, { workflowName: 'long' });
  const events: NewRunEvent[] = [runEvent(run, 'workflow_started', null, { workflowName: 'long' })];
  for (let i = 0; i < retries; i++) {
    events.push(runEvent(run, 'node_started', 'flaky'), runEvent(run, 'node_failed', 'flaky', { error: `attempt ${i}`, duration_ms: 5 }));
  }
  events.push(
    runEvent(run, 'node_started', 'late'),
    runEvent(run, 'node_completed', 'late', { duration_ms: 1200, node_output: 'the very last output' }),
  );
  for (let start = 0; start < events.length; start += 500) await t.writer.appendEvents(events.slice(start, start + 500));
  return run;
}

describe('cairn run get on a run longer than one page', () => {
  it('summarises every node, including one only the last page mentions', async () => {
    const run = await seedLongRun(1100);
    const { code, stdout, stderr } = await cli('run', 'get', run.id);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^flaky\s+failed\s+5ms\s+attempt 1099$/m);
    expect(stdout).toMatch(/^late\s+completed\s+1\.2s$/m);
  });

  it('lists every event with --events, once each and in order', async () => {
    const run = await seedLongRun(1100);
    const { code, stdout } = await cli('run', 'get', run.id, '--events');
    expect(code).toBe(0);
    const rows = stdout.split('\n').filter((line) => /^\d+\s/.test(line));
    expect(rows).toHaveLength(1 + 2 * 1100 + 2);
    const seqs = rows.map((line) => Number(line.split(/\s+/)[0]));
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    expect(rows.at(-1)).toMatch(/node_completed\s+late$/);
  });

  it('prints every event of every page in one events array with --json', async () => {
    const run = await seedLongRun(1100);
    const { code, stdout } = await cli('run', 'get', run.id, '--json');
    expect(code).toBe(0);
    const body = JSON.parse(stdout) as { run: { id: string }; events: { seq: number }[]; nextAfterSeq: null };
    expect(body.run.id).toBe(run.id);
    expect(body.events).toHaveLength(1 + 2 * 1100 + 2);
    expect(body.nextAfterSeq).toBeNull();
  });
});

describe('the outputs cairn workflow run prints when a long run completes', () => {
  it('finds the last node to complete even when it is on the last page', async () => {
    const run = await seedLongRun(1100);
    const client = createApiClient({ url, source: 'flag' });
    const last = await readRunOutputs(client, run.id, 'last');
    expect(last.map((e) => [e.step_name, e.data.node_output])).toEqual([['late', 'the very last output']]);
    expect(await readRunOutputs(client, run.id, 'none')).toEqual([]);
  });
});
