import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { git } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from '../helpers/agent-script.js';
import { checkoutState, codebaseId, completedRecord, failures, startClaudeWorkflowBench, waitForRun } from '../helpers/claude-workflow-run.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startRun } from '../helpers/workflows.js';

/**
 * The bundled `parallel-review`, end to end with Claude Code on the branch a user is working on,
 * in their own checkout (the workflow takes no worktree): four read_only reviewers read the diff
 * against the base branch; one tries to change a file and is refused, and the record says so;
 * the summary lands in review.md and the checkout is exactly as the user left it.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const greet = 'export function greet(name) {\n  return `hello ${name}`;\n}\n';
const loudGreet = 'export function greet(name) {\n  return `HELLO ${name}!`;\n}\n';
// The summary is AI text: the step that saves it must write it as it is, never run it.
const report = "# Review\n\nshould-fix | src/greet.js:2 | the greeting changed without a test | add a test for the loud greeting\nnit | $(touch pwned) `touch pwned2` '; touch pwned3 #\n";

const scripts: AgentScript[] = [
  { match: /Merge these independent reviews/, steps: [{ say: report }] },
  {
    match: /# Review: correctness/,
    steps: [{ tool: 'run', command: 'git diff origin/main...HEAD' }, { tool: 'run', command: 'git status --short' }, { say: 'nit | src/greet.js:2 | shouting | none' }],
  },
  {
    match: /# Review: tests/,
    steps: [{ tool: 'read', path: 'test/greet.test.js' }, { say: 'should-fix | src/greet.js:2 | the greeting changed without a test | add a test for the loud greeting' }],
  },
  {
    // A reviewer that oversteps: it tries to fix the code and to leave a file behind.
    match: /# Review: security/,
    steps: [
      { tool: 'read', path: 'src/greet.js' },
      { tool: 'write', path: 'src/greet.js', content: greet },
      { tool: 'run', command: 'touch reviewed-by-security.txt' },
      { say: 'No security findings.' },
    ],
  },
  { match: /# Review: documentation/, steps: [{ tool: 'read', path: 'README.md' }, { say: 'The docs are in step.' }] },
];

it('reviews the user’s branch against main with read_only reviewers, refuses and records a reviewer’s write, and saves review.md', async () => {
  const bench = await startClaudeWorkflowBench(home, scripts, {
    files: { 'README.md': '# widget\n', 'src/greet.js': greet, 'test/greet.test.js': "import { greet } from '../src/greet.js';\n" },
  });
  // The user, on a branch of their own with a commit, and a file they have not committed yet.
  git(bench.clone, 'checkout', '-q', '-b', 'feature/loud');
  await writeFile(join(bench.clone, 'src', 'greet.js'), loudGreet);
  git(bench.clone, 'commit', '-q', '-am', 'Greet loudly');
  await writeFile(join(bench.clone, 'notes.txt'), 'my own notes\n');
  const before = checkoutState(bench.clone);

  const url = bench.server.url;
  const { runId } = await startRun(url, 'parallel-review', { codebaseId, message: 'review my changes' });
  const { run, events } = await waitForRun(url, runId, 'completed');
  expect(run.status, failures(events)).toBe('completed');
  expect(run.working_path).toBe(bench.clone);
  expect(run.metadata.base_branch).toMatchObject({ name: 'main' });

  // The scope is the branch's change against main, and what is not committed.
  const scope = completedRecord(events, 'scope');
  expect(events.find((e) => e.step_name === 'scope' && e.event_type === 'node_completed')?.data.node_output).toMatch(/against main[\s\S]*src\/greet\.js[\s\S]*\?\? notes\.txt/);
  expect(scope.node.kind).toBe('exec');
  // A read_only reviewer can read the diff: Claude Code knows `git diff` changes nothing.
  const diff = bench.messages.toolResults.find((r) => (r.input as { command?: string })?.command === 'git diff origin/main...HEAD');
  expect(diff?.isError).toBe(false);
  expect(diff?.output).toContain('+  return `HELLO ${name}!`;');

  // Every agent ran read_only; the security reviewer's write and command were refused, and recorded.
  for (const node of ['correctness', 'tests', 'security', 'docs', 'summary']) {
    expect(completedRecord(events, node).binding.permissions, node).toBe('read_only');
  }
  const security = completedRecord(events, 'security');
  expect(security.diagnostics.toolCalls).toMatchObject({ total: 3, failed: 0, refused: 2 });
  expect(security.diagnostics.toolCalls.refusals.map((r: { tool?: string }) => r.tool)).toEqual(['Write', 'Bash']);
  const refused = events.filter((e) => e.event_type === 'tool_completed' && e.data.refused === true);
  expect(refused.map((e) => [e.step_name, e.data.tool_name])).toEqual([['security', 'Write'], ['security', 'Bash']]);
  for (const node of ['correctness', 'tests', 'docs', 'summary']) expect(completedRecord(events, node).diagnostics?.toolCalls?.refused ?? 0, node).toBe(0);

  // The report is saved outside the checkout, and the checkout is as the user left it.
  const artifacts = join(home.paths.workspaces, 'acme', 'widget', 'artifacts', 'runs', runId);
  expect((await readFile(join(artifacts, 'review.md'), 'utf8')).trimEnd()).toBe(report.trimEnd());
  expect(checkoutState(bench.clone)).toEqual(before);
  expect(await readFile(join(bench.clone, 'src', 'greet.js'), 'utf8')).toBe(loudGreet);
  for (const dir of [bench.clone, artifacts]) for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(dir, f)), f).toBe(false);
});
