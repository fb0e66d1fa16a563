import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

/** `cairn workflow run` shows a fan-out as a counter line per node, not a line per item (real server, real CLI process). */

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
  await startServer(home);
});
afterEach(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runUserCli(home.home, argv);

it.each(['in_run', 'child_runs'])('counts the items of a %s fan-out on counter lines, ending at every item', async (mode) => {
  await writeHomeWorkflow(home, 'item', `name: item\ndescription: x\nnodes:\n  - id: work\n    bash: 'case "$ARGUMENTS" in 3|7) exit 1;; esac; echo ok'\n`);
  await writeHomeWorkflow(home, 'many', `name: many
description: 20 items, 2 fail
nodes:
  - id: each
    workflow: item
    fan_out: { items: '[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]', max_parallel: 4, join: all_done, mode: ${mode} }
`);
  const { code, stdout } = await cli('workflow', 'run', 'many');
  expect(code).toBe(0);
  const counters = stdout.split('\n').filter((l) => l.startsWith('fan-out '));
  expect(counters.length).toBeGreaterThan(0);
  expect(counters.at(-1)).toBe('fan-out  each items 20/20 ✓ 18 ✗ 2 ⏳ 0');
  for (const line of counters) expect(line).toMatch(/^fan-out  each items \d+\/20 ✓ \d+ ✗ \d+ ⏳ \d+$/);
  // No line per item or per item's node.
  expect(stdout).not.toMatch(/each\[\d+\]/);
  expect(stdout).toMatch(/^done\s+each/m);
});
