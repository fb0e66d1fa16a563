import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from '../helpers/agent-script.js';
import {
  checkoutState, codebaseId, completedRecord, failures, pathWithGhStandIn, startClaudeWorkflowBench, upstreamProject, waitForRun,
} from '../helpers/claude-workflow-run.js';
import { startGitHubServer } from '../helpers/github-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';
import { expectDefaultsRow } from './defaults-row.js';

/**
 * The upstream `archon-refactor-safely`, unchanged in the repository's `.archon/workflows`, end
 * to end with Claude Code: its read-only analysis nodes are not offered the tools they deny, its
 * hooks reach the agent (context after each edit; the PR node's Write refused), the refactor is
 * committed and validated by the project's own scripts, and the branch is pushed with a pull
 * request whose base the last bash node checks through `gh` (the test stand-in).
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const token = 'ghp_refactor_token';
const format = 'export function format(word, name) {\n  return `${word} ${name}`;\n}\n';
const greet = "import { format } from './format.js';\n\nexport { format };\n\nexport function greet(name) {\n  return format('hello', name);\n}\n";
const plan = '## Task 1: extract format()\n\n**Action**: EXTRACT\n**Source**: src/greet.js\n**Target**: src/format.js\n';

const scripts: AgentScript[] = [
  {
    match: /You are a senior software engineer analyzing code for a safe refactoring/,
    steps: [{ tool: 'read', path: 'src/greet.js' }, { tool: 'write', path: '{artifacts}/impact-analysis.md', content: '### Target Files\n- src/greet.js\n' }, { say: 'Impact: src/greet.js, one export.' }],
  },
  {
    match: /You are planning a safe refactoring/,
    steps: [{ tool: 'read', path: '{artifacts}/impact-analysis.md' }, { tool: 'write', path: '{artifacts}/refactor-plan.md', content: plan }, { say: 'One task: extract format().' }],
  },
  {
    match: /You are executing a refactoring plan with strict safety guardrails/,
    steps: [
      { tool: 'read', path: '{artifacts}/refactor-plan.md' },
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'write', path: 'src/format.js', content: format },
      { tool: 'write', path: 'src/greet.js', content: greet },
      { tool: 'run', command: 'bun run type-check && bun run test' },
      { tool: 'run', command: "git add src/format.js src/greet.js && git commit -q -m 'refactor: extract format() from greet.js' && git log --oneline -1" },
      { say: 'Task 1 done: format() extracted, re-exported from src/greet.js.' },
    ],
  },
  { match: /Review the validation output below/, steps: [{ say: 'All checks passed — no fixes needed.' }] },
  {
    // Write is denied to this node, so the report it asks for can only be printed.
    match: /You are a code reviewer verifying that a refactoring preserved exact behavior/,
    steps: [{ tool: 'read', path: 'src/format.js' }, { tool: 'read', path: 'src/greet.js' }, { say: '### Verdict: PASS\n\nformat() moved unchanged; greet() re-exports it.' }],
  },
  {
    match: /Create a pull request for the refactoring/,
    steps: [
      { tool: 'run', command: 'git status --short' },
      { tool: 'run', command: 'git push -u origin HEAD' },
      { tool: 'run', command: 'gh pr list --repo acme/widget --head "$(git branch --show-current)"' },
      { tool: 'run', command: "gh pr create --repo acme/widget --base main --title 'refactor: extract format()' --body 'Behaviour-preserving extraction of format().'" },
      // The node's PreToolUse hook denies Write; the agent then saves the URL with a command.
      { tool: 'write', path: '{artifacts}/.pr-url', content: 'https://github.com/acme/widget/pull/1\n' },
      { tool: 'run', command: "echo https://github.com/acme/widget/pull/1 > '{artifacts}/.pr-url'" },
      { say: 'PR: https://github.com/acme/widget/pull/1' },
    ],
  },
];

it('runs archon-refactor-safely: denied tools are not offered, hooks reach the agent, the refactor is committed, pushed and opened as a pull request', async () => {
  let origin = '';
  const github = await startGitHubServer({ repository: 'acme/widget', token, issues: [], branchExists: (b) => git(origin, 'branch', '--list', b).trim() !== '' });
  home.defer(() => github.close());
  const bench = await startClaudeWorkflowBench(home, scripts, {
    files: upstreamProject(['archon-refactor-safely']),
    env: { PATH: pathWithGhStandIn(), GITHUB_API_URL: github.url, GH_TOKEN: token },
  });
  origin = bench.origin;
  const url = bench.server.url;
  const before = checkoutState(bench.clone);
  const { runId } = await startRun(url, 'archon-refactor-safely', { codebaseId, message: 'extract the formatting out of src/greet.js' });
  const { run, events } = await waitForRun(url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');
  expectDefaultsRow('archon-refactor-safely', run, events);
  const output = (node: string) => events.find((e) => e.step_name === node && e.event_type === 'node_completed')?.data.node_output as string;

  // denied_tools reach the CLI: the read-only nodes are never offered what they deny.
  const offered = (marker: string) => {
    const requests = bench.messages.requests.filter((r) => JSON.stringify(r.body.messages).includes(marker));
    expect(requests.length, marker).toBeGreaterThan(0);
    return new Set(requests.flatMap((r) => (r.body.tools ?? []).map((t: { name: string }) => t.name)));
  };
  const analysis = offered('analyzing code for a safe refactoring');
  expect(['Edit', 'Bash'].filter((t) => analysis.has(t))).toEqual([]);
  expect(analysis.has('Write')).toBe(true);
  const verification = offered('verifying that a refactoring preserved exact behavior');
  expect(['Write', 'Edit', 'Bash'].filter((t) => verification.has(t))).toEqual([]);
  expect(verification.has('Read')).toBe(true);

  // The hooks reach the agent: context before each edit of execute-refactor.
  const executeRequests = bench.messages.requests.filter((r) => JSON.stringify(r.body.messages).includes('You are executing a refactoring plan'));
  expect(JSON.stringify(executeRequests.at(-1)!.body.messages)).toContain('Is this file in your refactoring plan');

  // The refactor: committed on the run's branch, validated by the project's scripts, pushed, and a pull request into main.
  const worktree = run.working_path as string;
  const branch = `cairn/archon-refactor-safely-${runId.slice(0, 8)}`;
  expect(await readFile(join(worktree, 'src', 'format.js'), 'utf8')).toBe(format);
  expect(git(worktree, 'log', '--format=%s', `main..${branch}`).trim()).toBe('refactor: extract format() from greet.js');
  expect(output('validate')).toContain('VALIDATION_STATUS: PASS');
  expect(git(bench.origin, 'rev-parse', `refs/heads/${branch}`).trim()).toBe(git(worktree, 'rev-parse', 'HEAD').trim());
  expect(github.pulls).toEqual([{ number: 1, title: 'refactor: extract format()', body: 'Behaviour-preserving extraction of format().', head: branch, base: 'main', draft: false }]);
  expect(output('verify-pr-base')).toBe('PR base verified: main');
  const artifacts = join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId);
  expect(await readFile(join(artifacts, '.pr-url'), 'utf8')).toBe('https://github.com/acme/widget/pull/1\n');

  // The one refused call is the Write the create-pr node's hook denies; nothing else was refused or failed.
  const refused = events.filter((e) => e.event_type === 'tool_completed' && e.data.refused === true);
  expect(refused.map((e) => [e.step_name, e.data.tool_name])).toEqual([['create-pr', 'Write']]);
  expect(completedRecord(events, 'create-pr').diagnostics.toolCalls).toMatchObject({ refused: 1, failed: 0 });
  expect(bench.messages.toolResults.filter((r) => r.isError).map((r) => r.tool)).toEqual(['Write']);
  expect(checkoutState(bench.clone)).toEqual(before);
});
