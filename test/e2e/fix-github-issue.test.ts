import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from '../helpers/agent-script.js';
import {
  checkoutState, codebaseId, expectNothingRefused, failures, startClaudeWorkflowBench, waitForRun, widgetProject,
  type ClaudeWorkflowBench,
} from '../helpers/claude-workflow-run.js';
import { startGitHubServer, type GitHubServer } from '../helpers/github-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';

/**
 * The bundled `fix-github-issue`, end to end with Claude Code against a local stand-in for the
 * GitHub API: the issue is fetched with the server's token, classified (an agent offered no
 * tools), investigated, fixed, validated and committed; the run's branch is pushed to the
 * repository's origin and a draft pull request opened for it. A wrong token stops the run at
 * the fetch, saying what to do.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const token = 'ghp_test_token_0123456789';
const fixedGreet = 'export function greet(name) {\n  return `hello ${name.trim()}`;\n}\n';
const trimTest =
  "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { greet } from '../src/greet.js';\n\n" +
  "test('trims the name', () => assert.equal(greet('  ada '), 'hello ada'));\n";
const prTitle = 'Trim the name greet() is given';

const scripts: AgentScript[] = [
  {
    match: /Classify this GitHub issue/,
    steps: [{ say: JSON.stringify({ kind: 'bug', title: 'greet() keeps the spaces around a name', reasoning: 'existing behaviour is wrong' }) }],
  },
  {
    match: /A GitHub issue reports a bug/,
    steps: [
      { tool: 'read', path: '{artifacts}/issue.json' },
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'write', path: '{artifacts}/investigation.md', content: '## Root cause\nsrc/greet.js:2 does not trim the name.\n' },
      { say: 'Root cause: src/greet.js:2 does not trim the name.' },
    ],
  },
  {
    match: /Carry out the work described in/,
    steps: [
      { tool: 'read', path: '{artifacts}/investigation.md' },
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'edit', path: 'src/greet.js', old: 'hello ${name}', new: 'hello ${name.trim()}' },
      { tool: 'write', path: 'test/trim.test.js', content: trimTest },
      { tool: 'write', path: '{artifacts}/implementation.md', content: 'src/greet.js, test/trim.test.js\n' },
      { say: 'Fixed greet() and added a regression test.' },
    ],
  },
  {
    match: /Make the project's own checks pass/,
    steps: [{ tool: 'run', command: 'npm test' }, { tool: 'write', path: '{artifacts}/validation.md', content: 'npm test: pass\n' }, { say: 'npm test passes.' }],
  },
  {
    match: /Commit and describe the pull request/,
    steps: [
      { tool: 'run', command: 'git status --short' },
      { tool: 'run', command: `git add src/greet.js test/trim.test.js && git commit -q -m '${prTitle}' -m 'A name with spaces around it was greeted with them.' && git log --oneline -1` },
      // The description leaves out "Fixes #42": the workflow's last step adds it.
      { tool: 'write', path: '{artifacts}/pull-request.md', content: `${prTitle} "$(touch pwned)"\n\n## Summary\ngreet() trims the name. \`touch pwned2\`\n\n## Validation\nnpm test passes.\n` },
      { say: `committed: ${prTitle}` },
    ],
  },
];

async function benchWithGitHub(): Promise<{ bench: ClaudeWorkflowBench; github: GitHubServer }> {
  let origin = '';
  const github = await startGitHubServer({
    repository: 'acme/widget',
    token,
    issues: [{ number: 42, title: 'greet() keeps the spaces around a name', body: "greet('  ada ') says 'hello   ada '", labels: ['bug'], comments: [{ author: 'bob', body: 'Seen it too.' }] }],
    branchExists: (branch) => git(origin, 'branch', '--list', branch).trim() !== '',
  });
  home.defer(() => github.close());
  const bench = await startClaudeWorkflowBench(home, scripts, {
    files: widgetProject,
    env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/widget', GH_TOKEN: token },
  });
  origin = bench.origin;
  return { bench, github };
}

it('fetches the issue, classifies it with no tools, fixes it on the run’s branch, pushes the branch and opens a draft pull request', { timeout: 180_000 }, async () => {
  const { bench, github } = await benchWithGitHub();
  const url = bench.server.url;
  const before = checkoutState(bench.clone);
  const { runId } = await startRun(url, 'fix-github-issue', { codebaseId, message: 'fix issue #42' });
  const { run, events } = await waitForRun(url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');

  // The issue and its comments were read with the server's token.
  const reads = github.requests.filter((r) => r.method === 'GET');
  expect(reads.map((r) => r.path)).toEqual(['/repos/acme/widget/issues/42', '/repos/acme/widget/issues/42/comments']);
  expect(reads.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);

  // classify answered structured JSON; its requests offered the model no tool to act with, only
  // the CLI's StructuredOutput, the channel --json-schema gives the answer.
  expect(JSON.parse(nodeOutput(events, 'classify'))).toMatchObject({ kind: 'bug' });
  const classifyRequests = bench.messages.requests.filter((r) => JSON.stringify(r.body.messages).includes('Classify this GitHub issue'));
  expect(classifyRequests.length).toBeGreaterThan(0);
  for (const request of classifyRequests) expect((request.body.tools ?? []).map((t: { name: string }) => t.name)).toEqual(['StructuredOutput']);
  expect(events.find((e) => e.step_name === 'plan' && e.event_type === 'node_skipped')).toBeDefined();

  // The fix is committed on the run's branch, and that branch is on origin with the same commit.
  const worktree = run.working_path as string;
  const branch = `cairn/fix-github-issue-${runId.slice(0, 8)}`;
  expect(await readFile(join(worktree, 'src', 'greet.js'), 'utf8')).toBe(fixedGreet);
  expect(git(worktree, 'log', '--format=%s', `main..${branch}`).trim()).toBe(prTitle);
  expect(git(worktree, 'show', '--name-only', '--format=', branch).trim().split('\n')).toEqual(['src/greet.js', 'test/trim.test.js']);
  expect(git(worktree, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  expect(git(bench.origin, 'rev-parse', `refs/heads/${branch}`).trim()).toBe(git(worktree, 'rev-parse', 'HEAD').trim());
  const testRun = bench.messages.toolResults.find((r) => (r.input as { command?: string })?.command === 'npm test');
  expect(testRun?.output).toMatch(/# pass 2\b[\s\S]*# fail 0\b/);

  // One draft pull request, from the run's branch into the base branch, that closes the issue.
  expect(github.pulls).toHaveLength(1);
  // The title and description are the agent's text, sent as it wrote them and never run.
  expect(github.pulls[0]).toMatchObject({ title: `${prTitle} "$(touch pwned)"`, head: branch, base: 'main', draft: true });
  expect(github.pulls[0]!.body).toContain('greet() trims the name. `touch pwned2`');
  for (const f of ['pwned', 'pwned2']) expect(existsSync(join(worktree, f)), f).toBe(false);
  expect(github.pulls[0]!.body).toMatch(/Fixes #42$/);
  expect(github.requests.find((r) => r.method === 'POST')?.headers.authorization).toBe(`Bearer ${token}`);
  expect(nodeOutput(events, 'open-pr')).toBe('https://github.com/acme/widget/pull/1');

  expect(expectNothingRefused(events)).toBe(5);
  expect(bench.messages.toolResults.filter((r) => r.isError)).toEqual([]);
  expect(checkoutState(bench.clone)).toEqual(before);
  expect(existsSync(join(bench.clone, 'test', 'trim.test.js'))).toBe(false);

  // A token GitHub refuses stops the run at the fetch, with what to do, before any agent runs.
  const requestsBefore = bench.messages.requests.length;
  const wrong = await startRun(url, 'fix-github-issue', { codebaseId, message: 'fix issue #42', config: { env: { GH_TOKEN: 'ghp_revoked' } } });
  const failed = await waitForRun(url, wrong.runId, 'failed');
  expect(failed.run.status).toBe('failed');
  const fetchFailure = failed.events.find((e) => e.step_name === 'fetch-issue' && e.event_type === 'node_failed');
  expect(fetchFailure?.data.error).toContain('GitHub answered 401 for /issues/42');
  expect(fetchFailure?.data.error).toContain('Bad credentials');
  expect(fetchFailure?.data.error).toContain('(set GH_TOKEN to a token that can read this repository)');
  expect(bench.messages.requests.length).toBe(requestsBefore);
});

function nodeOutput(events: readonly Record<string, any>[], node: string): string {
  return events.find((e) => e.step_name === node && e.event_type === 'node_completed')?.data.node_output as string;
}
