import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { PermissionLevel } from '../../../src/shared/providers/agent-options.js';
import type { ProviderAdapter, ProviderChunk } from '../../../src/worker/providers/provider-adapter.js';
import type { AgentStep } from '../../helpers/agent-script.js';
import { chatCompletionsAgent, type ChatCompletionsAgent, type ToolVocabulary } from '../../helpers/chat-completions-agent.js';
import { agentTask, runAttempt } from './agent-harness.js';

/**
 * The permission levels of a CLI that talks to a Chat Completions server (Pi, Copilot), each proven
 * by one scripted session of the real CLI in a real git repository: what the agent's tools did to
 * the worktree (the file, the commit), and which results the CLI reported as refused. Registered
 * inside the adapter's own `describe`, with its per-test scratch folder.
 */
export interface PermissionSpec {
  label: string;
  adapter: ProviderAdapter;
  vocabulary: ToolVocabulary;
  /** A task for the adapter against a fresh local server answering with `agent`. */
  task: (agent: ChatCompletionsAgent, overrides?: Parameters<typeof agentTask>[1]) => Promise<ReturnType<typeof agentTask>>;
  dir: () => string;
}

/** A git repository with one committed README, the run's artifacts folder, and a folder outside both. */
export function scriptedWorkspace(root: string) {
  const real = realpathSync(root);
  const repo = join(real, 'repo');
  const artifacts = join(real, 'artifacts');
  const outside = join(real, 'outside');
  for (const d of [repo, artifacts, outside]) mkdirSync(d, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'widget: a small tool\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'seed');
  return { repo, artifacts, outside };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The session every level runs: read, write a new file, edit one, commit, write into the artifacts folder, write outside. */
function session(artifacts: string, outside: string): AgentStep[] {
  return [
    { tool: 'read', path: 'README.md' },
    { tool: 'write', path: 'plan.md', content: 'step one\n' },
    { tool: 'edit', path: 'README.md', old: 'small', new: 'tiny' },
    { tool: 'run', command: "git add plan.md README.md && git -c user.name=agent -c user.email=agent@localhost commit -q -m 'add plan' && git log --oneline -1" },
    { tool: 'write', path: join(artifacts, 'report.md'), content: 'report\n' },
    { tool: 'write', path: join(outside, 'escape.md'), content: 'escaped\n' },
    { say: 'Session over.' },
  ];
}

/** The tool results of a run, in order. */
export function toolResults(chunks: ProviderChunk[]) {
  return chunks.filter((c): c is Extract<ProviderChunk, { type: 'tool_result' }> => c.type === 'tool_result');
}

async function runSession(spec: PermissionSpec, permissions: PermissionLevel) {
  const ws = scriptedWorkspace(spec.dir());
  const agent = chatCompletionsAgent([{ steps: session(ws.artifacts, ws.outside) }], { vocabularies: [spec.vocabulary] });
  const task = await spec.task(agent, { cwd: ws.repo, options: { permissions, extraDirs: [ws.artifacts] } });
  const run = await runAttempt(spec.adapter, task);
  return { ...ws, ...run, agent };
}

export function chatCliPermissionCases(spec: PermissionSpec): void {
  it(`workspace: ${spec.label} reads, writes, edits and commits in its worktree and writes the artifacts folder; a write outside both is refused`, async () => {
    const { repo, artifacts, outside, outcome, chunks, agent } = await runSession(spec, 'workspace');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Session over.');
    // Every line the real CLI printed, tool events included, read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(readFileSync(join(repo, 'plan.md'), 'utf8')).toBe('step one\n');
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('widget: a tiny tool\n');
    expect(git(repo, 'log', '-1', '--format=%s%n%an')).toBe('add plan\nagent\n');
    expect(git(repo, 'show', 'HEAD:plan.md')).toBe('step one\n');
    expect(git(repo, 'show', 'HEAD:README.md')).toBe('widget: a tiny tool\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(artifacts, 'report.md'), 'utf8')).toBe('report\n');
    expect(existsSync(join(outside, 'escape.md'))).toBe(false);
    // Six calls, six results sent back to the model; only the write outside was refused.
    expect(agent.toolResults.map((r) => r.tool)).toEqual(agent.calls.map((c) => c.name));
    expect(agent.toolResults).toHaveLength(6);
    const results = toolResults(chunks);
    expect(results.map((r) => r.refused === true)).toEqual([false, false, false, false, false, true]);
    expect(results.slice(0, 5).every((r) => !r.isError)).toBe(true);
    expect(agent.toolResults[0]!.content).toContain('widget: a small tool');
  });

  it(`read_only: ${spec.label} reads, and every write, edit and command is refused; nothing is written, nothing committed`, async () => {
    const { repo, artifacts, outside, outcome, chunks, agent } = await runSession(spec, 'read_only');
    expect(outcome.status).toBe('completed');
    expect(agent.toolResults).toHaveLength(6);
    expect(agent.toolResults[0]!.content).toContain('widget: a small tool');
    expect(toolResults(chunks).map((r) => r.refused === true)).toEqual([false, true, true, true, true, true]);
    expect(existsSync(join(repo, 'plan.md'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('widget: a small tool\n');
    expect(existsSync(join(artifacts, 'report.md'))).toBe(false);
    expect(existsSync(join(outside, 'escape.md'))).toBe(false);
    expect(git(repo, 'log', '--format=%s')).toBe('seed\n');
  });

  it(`full: ${spec.label} refuses nothing, a write outside the worktree included`, async () => {
    const { repo, outside, outcome, chunks } = await runSession(spec, 'full');
    expect(outcome.status).toBe('completed');
    expect(toolResults(chunks).map((r) => r.refused === true || r.isError === true)).toEqual([false, false, false, false, false, false]);
    expect(readFileSync(join(outside, 'escape.md'), 'utf8')).toBe('escaped\n');
    expect(git(repo, 'log', '-1', '--format=%s')).toBe('add plan\n');
  });
}
