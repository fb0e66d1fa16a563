import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  checkoutState, codebaseId, completedRecord, expectNothingRefused, failures, startClaudeWorkflowBench, waitForRun, widgetProject,
} from '../helpers/claude-workflow-run.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';

/**
 * The bundled `assist`, end to end with Claude Code: it takes no worktree by design, so what the
 * agent writes lands in the user's own checkout, where they are looking, uncommitted.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const contributing = '# Contributing\n\nRun `npm test` before you send a change.\n';

it('writes the file the user asked for in their own checkout, on their branch, and commits nothing', async () => {
  const bench = await startClaudeWorkflowBench(
    home,
    [{ match: /Add a CONTRIBUTING\.md/, steps: [{ tool: 'read', path: 'package.json' }, { tool: 'write', path: 'CONTRIBUTING.md', content: contributing }, { tool: 'run', command: 'git status --short' }, { say: 'Added CONTRIBUTING.md.' }] }],
    { files: widgetProject },
  );
  const before = checkoutState(bench.clone);
  const { runId } = await startRun(bench.server.url, 'assist', { codebaseId, message: 'Add a CONTRIBUTING.md that says how to run the tests' });
  const { run, events } = await waitForRun(bench.server.url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');
  expect(run.working_path).toBe(bench.clone);

  expect(await readFile(join(bench.clone, 'CONTRIBUTING.md'), 'utf8')).toBe(contributing);
  expect(checkoutState(bench.clone)).toEqual({ ...before, status: '?? CONTRIBUTING.md\n' });
  expect(bench.messages.toolResults.find((r) => r.tool === 'Bash')?.output).toContain('?? CONTRIBUTING.md');
  expect(completedRecord(events, 'assist').binding.permissions).toBe('workspace');
  expect(expectNothingRefused(events)).toBe(1);
});
