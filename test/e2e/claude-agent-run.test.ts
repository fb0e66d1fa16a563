import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import { scriptedMessages, startAnthropicServer, type AnthropicServer, type ScriptedMessages } from '../helpers/anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from '../helpers/claude-cli.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A run on a registered codebase, end to end with the real Claude Code CLI playing a scripted
 * agent: at `workspace` (the default) its node writes, commits on the run's branch and writes the
 * run's $ARTIFACTS_DIR; a `read_only` node after it is refused every write, and its record says so.
 */

let home: TempHome;
let root: string;
let messages: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-claude-run-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
  await messages?.close();
});

it('a workspace node commits in the run’s worktree and writes $ARTIFACTS_DIR; a read_only node’s writes are refused and recorded', async () => {
  const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
  // The scripts need the run's artifacts folder, which the prompt names: they are made on the first request.
  let scripted: ScriptedMessages | undefined;
  messages = await startAnthropicServer((req, i) => {
    if (scripted === undefined) {
      const artifacts = /report to (\/\S+)\/report\.md/.exec(JSON.stringify(req.body.messages))?.[1];
      if (artifacts === undefined) return { kind: 'stream', blocks: [{ type: 'text', text: 'ok' }] };
      scripted = scriptedMessages([
        {
          match: /CHANGE-TASK/,
          steps: [
            { tool: 'write', path: 'notes.txt', content: 'from the agent\n' },
            { tool: 'run', command: "git add notes.txt && git -c user.name=agent -c user.email=agent@localhost commit -q -m 'agent notes'" },
            { tool: 'write', path: `${artifacts}/report.md`, content: 'reported\n' },
            { say: 'changed' },
          ],
        },
        {
          match: /LOOK-TASK/,
          steps: [{ tool: 'read', path: 'notes.txt' }, { tool: 'write', path: 'notes.txt', content: 'overwritten\n' }, { tool: 'run', command: 'rm notes.txt' }, { say: 'looked' }],
        },
      ]);
    }
    return scripted.reply(req, i);
  });
  const cliHome = join(root, 'cli-home');
  const server = await startServer(home, { ...claudeCliEnv(messages.url, cliHome), CLAUDE_BIN_PATH: pinnedClaudeCli });
  const added = await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }) });
  expect(added.status).toBeLessThan(300);
  await writeHomeWorkflow(home, 'agent-commits', `name: agent-commits
description: a Claude node commits in the run's worktree; a read-only one cannot change it
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: change
    prompt: "CHANGE-TASK: add notes.txt, commit it, and write your report to $ARTIFACTS_DIR/report.md"
  - id: look
    depends_on: [change]
    permissions: read_only
    prompt: "LOOK-TASK: read notes.txt"
`);
  const { runId } = await startRun(server.url, 'agent-commits', { codebaseId: 'acme/widget' });
  const { run, events } = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed'].includes(detail.run.status as string) ? detail : undefined;
  }, { what: 'the run to end', timeoutMs: 50_000 });
  expect(run.status).toBe('completed');

  const worktree = run.working_path as string;
  expect(await readFile(join(worktree, 'notes.txt'), 'utf8')).toBe('from the agent\n');
  expect(git(worktree, 'log', '--format=%s', '-1')).toBe('agent notes\n');
  expect(git(worktree, 'status', '--porcelain')).toBe('');
  const record = (node: string) => events.find((e) => e.step_name === node && e.event_type === 'node_completed')!.data.execution;
  const change = record('change');
  expect(change.binding.permissions).toBe('workspace');
  expect(change.diagnostics.toolCalls).toMatchObject({ total: 3, failed: 0, refused: 0 });
  const look = record('look');
  expect(look.binding.permissions).toBe('read_only');
  expect(look.diagnostics.toolCalls).toMatchObject({ total: 3, failed: 0, refused: 2 });
  expect(look.diagnostics.toolCalls.refusals.map((r: { tool?: string }) => r.tool)).toEqual(['Write', 'Bash']);
  expect(scripted!.toolResults.filter((r) => r.isError).map((r) => r.tool)).toEqual(['Write', 'Bash']);
  const artifacts = /report to (\/\S+)\/report\.md/.exec(JSON.stringify(messages.requests[0]!.body.messages))![1]!;
  expect(await readFile(join(artifacts, 'report.md'), 'utf8')).toBe('reported\n');
  expect(existsSync(join(worktree, 'report.md'))).toBe(false);
});
