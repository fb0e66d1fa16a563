import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../../src/shared/log.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { ScriptedHandlers, startScheduler } from './scheduler-harness.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it("a run's log lines name the run once, and run.finished says why the run failed", async () => {
  const lines: string[] = [];
  const root = createLogger({ name: 'supervisor', level: 'info', destination: { write: (line: string) => lines.push(line) } });
  const handlers = new ScriptedHandlers(() => {
    throw new Error('worker vanished');
  });
  const yaml = 'name: crashy\ndescription: d\nnodes:\n  - { id: a, bash: "true" }\n';
  // The scheduler gets the run's own logger, as the scheduler factory builds it.
  const { scheduler, run } = await startScheduler(home, yaml, handlers, { logFor: (runId) => root.child({ runId }) });
  expect(await scheduler.done).toBe('failed');

  const written = lines.map((line) => ({ line, json: JSON.parse(line) as Record<string, unknown> }));
  expect(written.map((w) => w.json.msg)).toEqual(expect.arrayContaining(['node.attempt_crashed', 'run.finished']));
  for (const { line, json } of written) {
    expect(line.match(/"runId"/g), line).toHaveLength(1);
    expect(json.runId).toBe(run.id);
  }
  const finished = written.find((w) => w.json.msg === 'run.finished')!.json;
  expect(finished).toMatchObject({ status: 'failed', error: expect.stringContaining("node(s) a failed") });
});
