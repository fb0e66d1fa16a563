import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { continuedSession, type AgentScript } from '../helpers/agent-script.js';
import {
  checkoutState, codebaseId, completedRecord, expectNothingRefused, failures, startClaudeWorkflowBench, upstreamProject, waitForRun,
} from '../helpers/claude-workflow-run.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';
import { expectDefaultsRow } from './defaults-row.js';

/**
 * Two of the upstream system's default workflows, copied unchanged into a repository's
 * `.archon/` folders, run end to end by Cairn with Claude Code: `archon-assist` (in the live
 * checkout) and `archon-test-loop-dag` (a loop that continues its session until the counter
 * file reaches 3), side by side on one server.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const counter = '.archon/test-loop-dag-counter.txt';
const iteration = (n: number) => [
  { tool: 'read' as const, path: counter },
  { tool: 'write' as const, path: counter, content: `${n}\n` },
  { say: n >= 3 ? `Counter: ${n}\n<promise>COMPLETE</promise>` : `Counter: ${n}` },
];

const scripts: AgentScript[] = [
  { match: /# Assist Mode/, steps: [{ tool: 'write', path: 'NOTES.md', content: '# Notes\n' }, { say: 'Wrote NOTES.md. Note: Using assist mode.' }] },
  { match: /The loop counter test has completed/, steps: [{ tool: 'read', path: counter }, { say: 'Test loop DAG completed successfully. Final counter: 3' }] },
  ...continuedSession(/You are testing the loop node functionality/, [iteration(1), iteration(2), iteration(3)]),
];

it('runs archon-assist in the live checkout and archon-test-loop-dag to its counter of 3, continuing one session', async () => {
  const bench = await startClaudeWorkflowBench(home, scripts, { files: upstreamProject(['archon-assist', 'archon-test-loop-dag'], ['archon-assist']) });
  const url = bench.server.url;
  const before = checkoutState(bench.clone);
  const assist = await startRun(url, 'archon-assist', { codebaseId, message: 'start a NOTES.md' });
  const loop = await startRun(url, 'archon-test-loop-dag', { codebaseId, message: 'run test-loop-dag' });

  const assisted = await waitForRun(url, assist.runId, 'completed');
  expect(assisted.run.status, failures(assisted.events)).toBe('completed');
  expectDefaultsRow('archon-assist', assisted.run, assisted.events);
  expect(assisted.run.working_path).toBe(bench.clone);
  expect(await readFile(join(bench.clone, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  expect(expectNothingRefused(assisted.events)).toBe(1);

  const looped = await waitForRun(url, loop.runId, 'completed');
  expect(looped.run.status, failures(looped.events)).toBe('completed');
  expectDefaultsRow('archon-test-loop-dag', looped.run, looped.events);
  const worktree = looped.run.working_path as string;
  expect(await readFile(join(worktree, counter), 'utf8')).toBe('3\n');
  expect(completedRecord(looped.events, 'loop-counter').diagnostics.loopIterations).toBe(3);
  // fresh_context: false: the second and third iterations continued the first one's session.
  const bodies = looped.events.filter((e) => e.step_name === 'loop-counter/body' && e.event_type === 'node_completed').map((e) => e.data.execution.binding.sessionOrigin);
  expect(bodies).toEqual(['fresh', 'resumed', 'resumed']);
  expect(looped.events.find((e) => e.step_name === 'report' && e.event_type === 'node_completed')?.data.node_output).toContain('Final counter: 3');
  expect(expectNothingRefused(looped.events)).toBe(4);
  expect(bench.messages.toolResults.filter((r) => r.isError)).toEqual([]);

  // The user's checkout holds what assist wrote there, and nothing of the loop's run.
  expect(checkoutState(bench.clone)).toEqual({ ...before, status: '?? NOTES.md\n' });
});
