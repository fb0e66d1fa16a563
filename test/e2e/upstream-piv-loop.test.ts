import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import { continuedSession, type AgentScript } from '../helpers/agent-script.js';
import {
  answerGate, asks, checkoutState, codebaseId, expectNothingRefused, failures, pathWithGhStandIn, startClaudeWorkflowBench, upstreamProject,
  waitForRun,
} from '../helpers/claude-workflow-run.js';
import { startGitHubServer } from '../helpers/github-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';
import { expectDefaultsRow } from './defaults-row.js';

/**
 * The upstream `archon-piv-loop`, unchanged in the repository's `.archon/workflows`, end to end
 * with Claude Code: a person answers its three interactive loops through the API (explore, refine
 * the plan, validate), an agent implements the plan, commits and pushes the run's branch, and
 * opens a draft pull request with `gh`, whose base the last bash node checks. `gh` is the test
 * stand-in (test/fixtures/gh), talking to a local GitHub API.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const token = 'ghp_piv_token';
const shout = 'export function shout(text) {\n  return `${text.toUpperCase()}!`;\n}\n';
const shoutTest = "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { shout } from '../src/shout.js';\n\ntest('shouts', () => assert.equal(shout('hi'), 'HI!'));\n";
const plan = '# Feature: shout\n\n## Task List\n\n### Task 1: CREATE `src/shout.js`\n**Validate**: `bun run type-check`\n\n### Task 2: CREATE `test/shout.test.js`\n**Validate**: `bun run test`\n';

const scripts: AgentScript[] = [
  ...continuedSession(/# PIV Loop — Exploration/, [
    [{ tool: 'read', path: 'src/greet.js' }, { tool: 'run', command: 'git log --oneline -20' }, { say: '## What I Understand\nYou want shout(text).\n\nQuestions: should it add an exclamation mark?' }],
    [{ say: '## Implementation Summary\nshout(text): upper case, one exclamation mark.\n\nI have a clear picture.\n<promise>PLAN_READY</promise>' }],
  ]),
  {
    match: /# PIV Loop — Create Structured Plan/,
    steps: [{ tool: 'read', path: 'src/greet.js' }, { tool: 'write', path: '{artifacts}/plan.md', content: plan }, { say: '## Plan Created\n\n**Tasks**: 2' }],
  },
  ...continuedSession(/# PIV Loop — Plan Refinement/, [
    [{ tool: 'read', path: '{artifacts}/plan.md' }, { say: 'Two tasks: src/shout.js and its test. Say "approved" to proceed.' }],
    [{ say: 'Plan approved. Proceeding to implementation.\n<promise>PLAN_APPROVED</promise>' }],
  ]),
  {
    match: /# PIV Loop — Implementation Agent/,
    steps: [
      { tool: 'read', path: '{artifacts}/plan.md' },
      { tool: 'run', command: 'git log --oneline -10 && git status' },
      { tool: 'write', path: 'src/shout.js', content: shout },
      { tool: 'write', path: 'test/shout.test.js', content: shoutTest },
      { tool: 'run', command: 'bun run type-check && bun run lint && bun run test && bun run format:check' },
      { tool: 'run', command: "git add src/shout.js test/shout.test.js && git commit -q -m 'feat: add shout()' -m 'PIV Tasks 1-2: shout(text) and its test' && git log --oneline -1" },
      { tool: 'write', path: '{artifacts}/progress.txt', content: '## Task 1: src/shout.js — COMPLETED\n## Task 2: test/shout.test.js — COMPLETED\n' },
      { tool: 'run', command: 'git push -u origin HEAD' },
      { say: 'All tasks complete.\n<promise>COMPLETE</promise>' },
    ],
  },
  {
    match: /# PIV Loop — Automated Code Review/,
    steps: [{ tool: 'run', command: 'git diff main..HEAD --stat' }, { tool: 'run', command: 'bun run validate' }, { say: '## Code Review Complete\n\n### Recommendation\nREADY FOR REVIEW' }],
  },
  ...continuedSession(/# PIV Loop — Address Validation Feedback/, [
    [{ say: 'Review: ready. Test it and say "approved" to finalize.' }],
    [{ say: 'Implementation approved!\n<promise>VALIDATED</promise>' }],
  ]),
  {
    match: /# PIV Loop — Finalize/,
    steps: [
      { tool: 'run', command: 'git push -u origin HEAD' },
      { tool: 'run', command: 'gh pr view HEAD --repo acme/widget --json url 2>/dev/null || echo NO_PR' },
      { tool: 'run', command: "gh pr create --repo acme/widget --draft --base main --title 'feat: add shout()' --body 'Adds shout(text), with its test.'" },
      { say: 'PIV LOOP — COMPLETE\nPR: https://github.com/acme/widget/pull/1' },
    ],
  },
];

it('runs archon-piv-loop through its three interactive loops to a pushed branch and a draft pull request on main', async () => {
  let origin = '';
  const github = await startGitHubServer({ repository: 'acme/widget', token, issues: [], branchExists: (b) => git(origin, 'branch', '--list', b).trim() !== '' });
  home.defer(() => github.close());
  const bench = await startClaudeWorkflowBench(home, scripts, {
    files: upstreamProject(['archon-piv-loop']),
    env: { PATH: pathWithGhStandIn(), GITHUB_API_URL: github.url, GH_TOKEN: token },
  });
  origin = bench.origin;
  const url = bench.server.url;
  const before = checkoutState(bench.clone);
  const { runId } = await startRun(url, 'archon-piv-loop', { codebaseId, message: 'add shout(text) next to greet' });

  // Each loop pauses after its first iteration; a person answers, and the iteration that answers
  // the input and signals ends the loop with no further approval (as in the upstream): one
  // approval per loop, not two.
  const answers: ({ approve?: string })[] = [{ approve: 'ready, create the plan' }, { approve: 'approved' }, { approve: 'approved' }];
  for (const [i, answer] of answers.entries()) {
    const paused = await waitForRun(url, runId, 'paused', { until: (events) => asks(events) === i + 1 });
    expect(paused.run.status, failures(paused.events)).toBe('paused');
    await answerGate(url, runId, answer);
  }
  const { run, events } = await waitForRun(url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');
  expectDefaultsRow('archon-piv-loop', run, events);
  expect(asks(events)).toBe(3);
  // A person's answer reaches the next iteration as $LOOP_USER_INPUT.
  expect(bench.messages.requests.some((r) => JSON.stringify(r.body.messages).includes("**User's latest input**: ready, create the plan"))).toBe(true);
  for (const loop of ['explore', 'refine-plan', 'fix-feedback']) {
    const iterations = events.filter((e) => e.step_name === `${loop}/body` && e.event_type === 'node_completed').map((e) => e.data.execution.binding.sessionOrigin);
    expect(iterations, loop).toEqual(['fresh', 'resumed']);
  }

  // The work: committed on the run's branch, pushed to origin, and a draft pull request into main.
  const worktree = run.working_path as string;
  const branch = `cairn/archon-piv-loop-${runId.slice(0, 8)}`;
  expect(await readFile(join(worktree, 'src', 'shout.js'), 'utf8')).toBe(shout);
  expect(git(worktree, 'log', '--format=%s', `main..${branch}`).trim()).toBe('feat: add shout()');
  expect(git(bench.origin, 'rev-parse', `refs/heads/${branch}`).trim()).toBe(git(worktree, 'rev-parse', 'HEAD').trim());
  expect(github.pulls).toEqual([{ number: 1, title: 'feat: add shout()', body: 'Adds shout(text), with its test.', head: branch, base: 'main', draft: true }]);
  const output = (node: string) => events.find((e) => e.step_name === node && e.event_type === 'node_completed')?.data.node_output as string;
  expect(output('implement-setup')).toContain('TASK_COUNT=2');
  expect(output('verify-pr-base')).toBe('PR base verified: main');
  // finalize's gh pr create, then verify-pr-base's gh pr view of that pull request (Claude Code
  // itself also lists the branch's pull requests through gh after a push).
  const calls = github.requests.map((r) => `${r.method} ${r.path}`);
  expect(calls.filter((c) => c.startsWith('POST'))).toEqual(['POST /repos/acme/widget/pulls']);
  expect(calls.indexOf('GET /repos/acme/widget/pulls/1')).toBeGreaterThan(calls.indexOf('POST /repos/acme/widget/pulls'));
  expect(github.requests.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
  const checks = bench.messages.toolResults.find((r) => (r.input as { command?: string })?.command?.startsWith('bun run type-check'));
  expect(checks?.isError).toBe(false);
  expect(checks?.output).toMatch(/# pass 2\b/);
  expect(await readFile(join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId, 'progress.txt'), 'utf8')).toContain('Task 2');

  expect(expectNothingRefused(events)).toBe(10);
  expect(bench.messages.toolResults.filter((r) => r.isError)).toEqual([]);
  expect(checkoutState(bench.clone)).toEqual(before);
}, 180_000);
