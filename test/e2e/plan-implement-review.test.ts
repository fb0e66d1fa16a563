import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import { runUserCli } from '../cli/cli-process.js';
import type { AgentScript } from '../helpers/agent-script.js';
import {
  answerGate, asks, checkoutState, codebaseId, completedRecord, expectNothingRefused, failures, startClaudeWorkflowBench, waitForRun, widgetProject,
} from '../helpers/claude-workflow-run.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';

/**
 * The bundled `plan-implement-review`, end to end as a user runs it on their repository with
 * Claude Code: the plan is rejected once with a reason (the rework revises it), then approved;
 * the agents implement, run the project's tests, review, and commit on the run's branch.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const planV1 = '# Plan: slugify\n\n## Changes\n- src/slugify.js: slugify(text), lower case, words joined by dashes\n\n## Tests\n- test/slugify.test.js\n\n## Validation\n- npm test\n';
const slugify = "export function slugify(text) {\n  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');\n}\n";
const slugifyTest =
  "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { slugify } from '../src/slugify.js';\n\n" +
  "test('joins words with dashes', () => assert.equal(slugify('Hello World'), 'hello-world'));\n" +
  "test('trims dashes at both ends', () => assert.equal(slugify('  Hi there! '), 'hi-there'));\n";
const commitSubject = 'Add slugify(text) for URL-safe names';

const scripts: AgentScript[] = [
  {
    match: /rejected the plan/,
    steps: [
      { tool: 'read', path: '{artifacts}/plan.md' },
      { tool: 'edit', path: '{artifacts}/plan.md', old: 'words joined by dashes', new: 'words joined by dashes, no dash at either end' },
      { say: 'Revised the plan: slugify now trims dashes at both ends.' },
    ],
  },
  {
    match: /Write a plan another engineer could implement/,
    steps: [
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'write', path: '{artifacts}/plan.md', content: planV1 },
      { say: `PLAN-V1\n${planV1}` },
    ],
  },
  {
    match: /Carry out the work described in/,
    steps: [
      { tool: 'read', path: '{artifacts}/plan.md' },
      { tool: 'write', path: 'src/slugify.js', content: slugify },
      { tool: 'write', path: 'test/slugify.test.js', content: slugifyTest },
      { tool: 'write', path: '{artifacts}/implementation.md', content: 'src/slugify.js, test/slugify.test.js\n' },
      { say: 'Implemented slugify with two tests.' },
    ],
  },
  {
    match: /Make the project's own checks pass/,
    steps: [
      { tool: 'run', command: 'npm test' },
      { tool: 'write', path: '{artifacts}/validation.md', content: 'npm test: pass\n' },
      { say: 'All checks pass: npm test.' },
    ],
  },
  {
    match: /Review the change made in this run/,
    steps: [
      { tool: 'run', command: 'git status --short' },
      { tool: 'write', path: '{artifacts}/review.md', content: 'Verdict: ready\n\nNo findings.\n' },
      { say: 'Verdict: ready' },
    ],
  },
  {
    match: /Commit it on the current branch/,
    steps: [
      { tool: 'run', command: 'git status --short' },
      { tool: 'run', command: `git add src/slugify.js test/slugify.test.js && git commit -q -m '${commitSubject}' -m 'Names in URLs need a stable, readable form.' && git log --oneline -1` },
      { say: `Committed: ${commitSubject}` },
    ],
  },
];

it('plans, is rejected once and revised, then approved; implements, passes the tests, reviews, and commits on the run’s branch', { timeout: 180_000 }, async () => {
  const bench = await startClaudeWorkflowBench(home, scripts, { files: widgetProject });
  const url = bench.server.url;
  const before = checkoutState(bench.clone);
  const { runId } = await startRun(url, 'plan-implement-review', { codebaseId, message: 'Add a slugify(text) helper' });
  const artifacts = join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId);

  // The plan waits for a person; its message carries the plan.
  const first = await waitForRun(url, runId, 'paused');
  expect(first.run.status).toBe('paused');
  expect(first.events.filter((e) => e.event_type === 'approval_requested').at(-1)?.data.message).toContain('PLAN-V1');
  expect(await readFile(join(artifacts, 'plan.md'), 'utf8')).toBe(planV1);

  // Rejected with a reason, as a user does from a shell: the rework revises plan.md and the gate asks again.
  const rejected = await runUserCli(home.home, ['run', 'reject', runId, '--reason', 'Slugs must not start or end with a dash.']);
  expect(rejected.code, rejected.stderr).toBe(0);
  const paused = await waitForRun(url, runId, 'paused', { until: (events) => asks(events) === 2 });
  expect(paused.run.status).toBe('paused');
  expect(await readFile(join(artifacts, 'plan.md'), 'utf8')).toContain('no dash at either end');
  expect(completedRecord(paused.events, 'approve-plan/on_reject').lifecycle.status).toBe('completed');

  await answerGate(url, runId, { approve: 'Go ahead.' });
  const { run, events } = await waitForRun(url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');

  // The work is in the worktree and committed on the run's branch, with nothing left over.
  const worktree = run.working_path as string;
  const branch = `cairn/plan-implement-review-${runId.slice(0, 8)}`;
  expect(worktree).toBe(join(home.paths.workspaces, 'acme', 'widget', 'worktrees', runId));
  expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(branch);
  expect(await readFile(join(worktree, 'src', 'slugify.js'), 'utf8')).toBe(slugify);
  expect(await readFile(join(worktree, 'test', 'slugify.test.js'), 'utf8')).toBe(slugifyTest);
  expect(git(worktree, 'log', '--format=%B', `main..${branch}`).trim()).toBe(`${commitSubject}\n\nNames in URLs need a stable, readable form.`);
  expect(git(worktree, 'show', '--name-only', '--format=', branch).trim().split('\n')).toEqual(['src/slugify.js', 'test/slugify.test.js']);
  expect(git(worktree, 'status', '--porcelain', '--untracked-files=all')).toBe('');

  // The project's tests ran in validate, and passed: the slugify tests and the one that was there.
  const testRuns = bench.messages.toolResults.filter((r) => (r.input as { command?: string })?.command === 'npm test');
  expect(testRuns).toHaveLength(1);
  expect(testRuns[0]!.isError).toBe(false);
  expect(testRuns[0]!.output).toMatch(/# pass 3\b[\s\S]*# fail 0\b/);
  expect(await readFile(join(artifacts, 'review.md'), 'utf8')).toContain('Verdict: ready');

  // Every agent could do its work: no tool call refused, in the records or in what the CLI sent back.
  expect(expectNothingRefused(events)).toBe(6);
  expect(bench.messages.toolResults.filter((r) => r.isError)).toEqual([]);
  expect(completedRecord(events, 'commit').binding.permissions).toBe('workspace');

  // The user's own checkout saw none of it.
  expect(checkoutState(bench.clone)).toEqual(before);
  expect(existsSync(join(bench.clone, 'src', 'slugify.js'))).toBe(false);
});
