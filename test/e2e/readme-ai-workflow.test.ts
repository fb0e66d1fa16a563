import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { writeAndCommit } from '../helpers/agent-script.js';
import { startScriptedClaudeServer, type AnthropicServer } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The README's AI example (`review-then-fix`), as written there, on a registered repository with
 * the real Claude Code CLI playing a scripted agent: the read-only review is refused the write it
 * tries, the fix commits on the run's branch, and the user's checkout is left as it was.
 */

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const example = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((y) => y.includes('name: review-then-fix'));

let home: TempHome;
let root: string;
let messages: AnthropicServer | undefined;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-readme-ai-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
  await messages?.close();
});

it('the README’s review-then-fix runs: the read-only review is refused its write, the fix commits on the run’s branch', async () => {
  expect(example, 'the README has the review-then-fix example').toBeDefined();
  const loaded = loadWorkflowText(example!);
  expect(loaded.ok && loaded.parseWarnings).toEqual([]);

  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget', { 'README.md': 'widgte: a small tool\n' }), 'widget');
  const server = await startScriptedClaudeServer([
    { match: /Review the change/, steps: [{ tool: 'read', path: 'README.md' }, { tool: 'write', path: 'README.md', content: 'reviewers do not write\n' }, { say: 'README.md: "widgte" is a typo of "widget".' }] },
    {
      match: /Fix what this review found/,
      // As a model does: read the file, edit it, then the commit step and the answer of writeAndCommit.
      steps: [{ tool: 'read', path: 'README.md' }, { tool: 'edit', path: 'README.md', old: 'widgte', new: 'widget' }, ...writeAndCommit('README.md', '', 'Fix the typo in README.md', 'Fixed and committed.').slice(1)],
    },
  ]);
  messages = server;
  const cairn = await startServer(home, { ...claudeCliEnv(server.url, join(root, 'cli-home')), CLAUDE_BIN_PATH: pinnedClaudeCli });
  const added = await fetch(`${cairn.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }) });
  expect(added.status).toBeLessThan(300);
  await writeHomeWorkflow(home, 'review-then-fix', example!);

  const { runId } = await startRun(cairn.url, 'review-then-fix', { codebaseId: 'acme/widget' });
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['completed', 'failed'].includes(detail.run.status as string) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 50_000 });
  expect(run.status).toBe('completed');

  const record = (node: string) => events.find((e) => e.step_name === node && e.event_type === 'node_completed')!.data.execution;
  expect(record('review').binding.permissions).toBe('read_only');
  expect(record('review').diagnostics.toolCalls).toMatchObject({ total: 2, refused: 1, refusals: [{ tool: 'Write' }] });
  expect(record('fix').binding.permissions).toBe('workspace');
  expect(record('fix').diagnostics.toolCalls).toMatchObject({ total: 3, failed: 0, refused: 0 });
  // The fix's prompt carried the review's output.
  expect(JSON.stringify(server.requests.map((r) => r.body.messages))).toContain('is a typo of');

  const worktree = run.working_path as string;
  expect(await readFile(join(worktree, 'README.md'), 'utf8')).toBe('widget: a small tool\n');
  const branch = git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
  expect(branch).toMatch(/^cairn\/review-then-fix-/);
  expect(git(clone, 'log', '--format=%s', '-1', branch).trim()).toBe('Fix the typo in README.md');
  // The user's own checkout: its branch, its file and a clean tree, as before.
  expect(git(clone, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  expect(await readFile(join(clone, 'README.md'), 'utf8')).toBe('widgte: a small tool\n');
  expect(git(clone, 'status', '--porcelain')).toBe('');
});
