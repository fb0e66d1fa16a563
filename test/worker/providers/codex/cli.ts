import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import { agentTask } from '../agent-harness.js';

/**
 * What the Codex tests share: the two real CLIs (the pinned one and the newest on npm, installed
 * beside it as `codex-latest`), a task against a local Responses API server, and real git
 * repositories to work in.
 */

const require = createRequire(import.meta.url);

/** The Codex CLIs every permission test runs against, as `describe.each` rows. */
export const codexClis = [
  { version: 'pinned (0.169)', bin: require.resolve('@openai/codex/bin/codex.js') },
  { version: 'newest (0.171)', bin: require.resolve('codex-latest/bin/codex.js') },
] as const;

/** A Codex attempt of `bin` against `serverUrl`, working in `cwd`; HOME is the test's own. */
export function codexTaskFor(bin: string, serverUrl: string, home: string, overrides: Parameters<typeof agentTask>[1]) {
  return agentTask(home, {
    provider: 'codex',
    model: 'gpt-5-test',
    connection: { baseUrl: serverUrl, apiKey: 'sk-codex-test', binaryPath: bin, env: { HOME: home } },
    ...overrides,
  });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** A repository with one commit (README.md) at `dir`. */
export function makeRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# project\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** A worktree of `repo` on a new branch, as Cairn gives each run: its `.git` is a file pointing into the repo's. */
export function makeWorktree(repo: string, path: string, branch: string): string {
  git(repo, 'worktree', 'add', '-q', '-b', branch, path);
  return path;
}

export type ToolResult = Extract<ProviderChunk, { type: 'tool_result' }>;
export type ToolCall = Extract<ProviderChunk, { type: 'tool_call' }>;

export function toolResults(chunks: readonly ProviderChunk[]): ToolResult[] {
  return chunks.filter((c): c is ToolResult => c.type === 'tool_result');
}

export function toolCalls(chunks: readonly ProviderChunk[]): ToolCall[] {
  return chunks.filter((c): c is ToolCall => c.type === 'tool_call');
}
