import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
/** Every ```yaml block of the README but the AI example, which readme-ai-workflow.test.ts runs on a scripted agent. */
const yamlBlocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((y) => !/^\s+(prompt|command):/m.test(y));

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it("the README's example workflows load without warnings and run to completion", async () => {
  expect(yamlBlocks.length).toBeGreaterThan(0);
  const sup = await startSupervisor(home);
  for (const yaml of yamlBlocks) {
    const loaded = loadWorkflowText(yaml);
    expect(loaded.ok && loaded.parseWarnings, yaml).toEqual([]);
    const run = await sup.createRun(yaml, { workingPath: home.home });
    expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status, yaml).toBe('completed');
  }
});
