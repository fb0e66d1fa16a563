import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor, type LooseEvent } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * docs/workflows.md, "How values enter each kind of body": the `count-check` example runs as the
 * page says, with `42`, `7` and `a[$(id>f)]`, and the error of its `compare` node is the page's.
 */

const doc = readFileSync(fileURLToPath(new URL('../../docs/workflows.md', import.meta.url)), 'utf8');
const yaml = readFileSync(fileURLToPath(new URL('../fixtures/workflows/examples/workflows/count-check.yaml', import.meta.url)), 'utf8');

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const outcome = (events: LooseEvent[], id: string) => {
  const e = events.find((x) => x.step_name === id && ['node_completed', 'node_failed'].includes(x.event_type));
  return e?.event_type === 'node_completed' ? (e.data.node_output as string) : `failed: ${e?.data.error as string}`;
};

it('count-check prints, and fails, as the page says', async () => {
  const error = /```\n(Node 'compare': .*)\n```/.exec(doc)?.[1];
  expect(error).toBeDefined();
  const sup = await startSupervisor(home);
  const runs: Record<string, { compare: string; 'any-text': string }> = {
    '42': { compare: 'over the limit', 'any-text': 'next: 43' },
    '7': { compare: 'within it: 14', 'any-text': 'next: 8' },
    'a[$(id>f)]': { compare: `failed: ${error}`, 'any-text': 'not a number' },
  };
  for (const [message, expected] of Object.entries(runs)) {
    const run = await sup.createRun(yaml, { message, workingPath: home.home });
    await sup.waitForStatus(run.id, ['completed', 'failed']);
    const events = await sup.events(run.id);
    expect({ message, compare: outcome(events, 'compare'), 'any-text': outcome(events, 'any-text') }).toEqual({ message, ...expected });
  }
  expect(readdirSync(home.home)).not.toContain('f');
  // The page's words for it.
  expect(doc).toContain('With the message `42`, `compare` prints `over the limit` and `any-text` `next: 43`; with `7`,\n`within it: 14` and `next: 8`; with `a[$(id>f)]`, `compare` fails before it runs with the error\nabove, and `any-text` prints `not a number`.');
});
