import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../../src/worker/providers/codex/adapter.js';
import type { AgentScript } from '../../../helpers/agent-script.js';
import { agentReplies, startResponsesServer, toolOutputs } from '../../../helpers/responses-server.js';
import { runAttempt } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';
import { codexClis, codexTaskFor, git, makeRepo, makeWorktree, toolCalls, toolResults } from './cli.js';

/**
 * Each permission level on the real Codex CLIs (pinned and newest), a scripted coding agent on a
 * local Responses API server asking Codex to read, write, edit and run in a real git worktree:
 * the files and commits afterwards say what Codex let through, and every tool result the model
 * was sent (recorded by the server) says what was refused.
 */

const setup = cliTestSetup({ start: startResponsesServer });

/** A session at `level`; `script` may use the local server's port (the model's one reachable host). */
async function session(bin: string, level: 'read_only' | 'workspace' | 'full', script: AgentScript | ((port: string) => AgentScript), extraDirs: string[] = []) {
  const repo = makeRepo(join(setup.dir(), 'repo'));
  const cwd = makeWorktree(repo, join(setup.dir(), 'run-worktree'), 'cairn/run');
  const scripts: AgentScript[] = [];
  const server = await setup.start(agentReplies(scripts));
  scripts.push(typeof script === 'function' ? script(new URL(server.url).port) : script);
  const task = codexTaskFor(bin, server.url, setup.dir(), { cwd, options: { permissions: level, extraDirs } });
  const result = await runAttempt(codexAdapter, task);
  const outputs = toolOutputs(server.requests.at(-1)!);
  return { ...result, repo, cwd, outputs };
}

const commit = "git add notes.txt && git -c user.name=agent -c user.email=agent@localhost commit -q -m 'agent notes'";

describe.each(codexClis)('codex permissions, $version', ({ bin }) => {
  it('workspace: reads, writes, edits, writes the artifacts folder, commits in the worktree and reaches the network; a write elsewhere is refused', async () => {
    // A hostile folder name: it lands in the TOML of Codex's writable roots.
    const artifacts = join(setup.dir(), 'arti"fa]cts');
    mkdirSync(artifacts);
    const outside = join(setup.dir(), 'outside.txt');
    const { outcome, chunks, repo, cwd, outputs } = await session(
      bin,
      'workspace',
      (port) => ({
        steps: [
          { tool: 'read', path: 'README.md' },
          { tool: 'write', path: 'notes.txt', content: 'first\nsecond\n' },
          { tool: 'edit', path: 'notes.txt', old: 'second', new: 'edited' },
          { tool: 'write', path: join(artifacts, 'report.md'), content: 'artifact\n' },
          { tool: 'write', path: outside, content: 'escaped\n' },
          { tool: 'run', command: `${commit} && touch "$TMPDIR/scratch" && (exec 3<>/dev/tcp/127.0.0.1/${port}) && echo tmp-and-net-ok` },
          { say: 'Committed the notes.' },
        ],
      }),
      [artifacts],
    );
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Committed the notes.');
    // Every line of the CLI's stdout and of its rollout, tool calls included, read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('first\nedited\n');
    expect(readFileSync(join(artifacts, 'report.md'), 'utf8')).toBe('artifact\n');
    expect(existsSync(outside)).toBe(false);
    // The commit is on the run's branch: written into the main checkout's git directory.
    expect(git(repo, 'log', '--format=%s', 'cairn/run')).toBe('agent notes\ninitial');
    expect(git(cwd, 'show', '--stat', '--format=', 'HEAD')).toContain('notes.txt');
    // What the model was told: six results, only the write outside refused (by Codex's policy).
    expect(outputs).toHaveLength(6);
    expect(outputs[4]!.output).toMatch(/^patch rejected: /);
    expect(outputs[5]!.output).toContain('tmp-and-net-ok');
    const results = toolResults(chunks);
    expect(results.map((r) => r.refused === true)).toEqual([false, false, false, false, true, false]);
    expect(results.filter((r) => r.isError).length).toBe(1);
    // The calls as the model made them (this model is offered no apply_patch tool: it runs apply_patch in the shell).
    const calls = toolCalls(chunks);
    expect(calls.map((c) => c.id)).toEqual(results.map((r) => r.id));
    expect(JSON.stringify(calls[1]!.input)).toContain('*** Add File: ');
    expect(JSON.stringify(calls[2]!.input)).toContain('*** Update File: ');
  });

  it('read_only: reads, and every write, edit and command that would change something is refused', async () => {
    const { outcome, chunks, repo, cwd, outputs } = await session(bin, 'read_only', {
      steps: [
        { tool: 'read', path: 'README.md' },
        { tool: 'write', path: 'notes.txt', content: 'first\n' },
        { tool: 'edit', path: 'README.md', old: '# project', new: '# changed' },
        { tool: 'run', command: 'touch made.txt' },
        { tool: 'run', command: "git -c user.name=agent -c user.email=agent@localhost commit -q --allow-empty -m 'agent notes'" },
        { say: 'Nothing could be changed.' },
      ],
    });
    expect(outcome.status).toBe('completed');
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
    expect(readFileSync(join(cwd, 'README.md'), 'utf8')).toBe('# project\n');
    expect(git(repo, 'log', '--format=%s', 'cairn/run')).toBe('initial');
    expect(outputs).toHaveLength(5);
    expect(outputs[0]!.output).toContain('# project');
    const results = toolResults(chunks);
    expect(results.map((r) => r.refused === true)).toEqual([false, true, true, true, true]);
    expect(results.slice(1).every((r) => r.isError === true)).toBe(true);
  });

  it('full: a write and a command outside the working directory go through', async () => {
    const outside = join(setup.dir(), 'outside.txt');
    const outsideCommand = join(setup.dir(), 'outside-command.txt');
    const { outcome, chunks, outputs } = await session(bin, 'full', {
      steps: [
        { tool: 'write', path: outside, content: 'anything goes\n' },
        { tool: 'run', command: `echo ran > '${outsideCommand}'` },
        { say: 'Done.' },
      ],
    });
    expect(outcome.status).toBe('completed');
    expect(readFileSync(outside, 'utf8')).toBe('anything goes\n');
    expect(readFileSync(outsideCommand, 'utf8')).toBe('ran\n');
    expect(outputs).toHaveLength(2);
    expect(toolResults(chunks).some((r) => r.refused || r.isError)).toBe(false);
  });
});
