import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentOptions } from '../../../../src/shared/providers/agent-options.js';
import { claudeAdapter } from '../../../../src/worker/providers/claude/adapter.js';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import type { AgentScript } from '../../../helpers/agent-script.js';
import { startAnthropicServer, startScriptedClaudeServer, type AnthropicServer, type MessagesReply, type RecordedRequest, type SeenToolResult } from '../../../helpers/anthropic-server.js';
import { claudeCliEnv, type ClaudeCli } from '../../../helpers/claude-cli.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';

/**
 * One scripted session of the real Claude Code CLI through the real adapter, in a real git
 * repository: `repo` (the working directory, README.md committed on `main`), `artifacts` (the
 * run's extra directory), `outside` (neither), `home` (the CLI's HOME).
 */
export interface ClaudeWorld {
  root: string;
  repo: string;
  artifacts: string;
  outside: string;
  home: string;
  cleanup(): void;
}

export function makeClaudeWorld(): ClaudeWorld {
  const { dir, cleanup } = scratch();
  const world = { root: dir, repo: join(dir, 'repo'), artifacts: join(dir, 'artifacts'), outside: join(dir, 'outside'), home: join(dir, 'home'), cleanup };
  for (const d of [world.repo, world.artifacts, world.outside, world.home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(world.repo, 'README.md'), 'hello\n');
  git(world.repo, 'init', '-q', '-b', 'main');
  commitAll(world.repo, 'init');
  return world;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd, encoding: 'utf8' });
}

export function commitAll(cwd: string, message: string): void {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', message);
}

export interface SessionRun {
  outcome: Awaited<ReturnType<typeof runAttempt>>['outcome'];
  chunks: ProviderChunk[];
  results: Extract<ProviderChunk, { type: 'tool_result' }>[];
  server: AnthropicServer;
  /** What the CLI sent back to the scripted agent (empty for a hand-written `reply`). */
  seen: SeenToolResult[];
}

export interface SessionSpec {
  cli: ClaudeCli;
  world: ClaudeWorld;
  /** The scripted agent; or `reply`, a hand-written answer to each request. */
  scripts?: AgentScript[];
  reply?: (req: RecordedRequest, index: number) => MessagesReply;
  options: Partial<AgentOptions> & Pick<AgentOptions, 'permissions'>;
  model?: string;
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  systemPrompt?: string;
  env?: Record<string, string>;
}

/** Runs one attempt; the server is closed with the world's cleanup by the caller's `closeAll`. */
export async function runClaudeSession(spec: SessionSpec, closers: (() => Promise<void>)[]): Promise<SessionRun> {
  let server: AnthropicServer;
  let seen: SeenToolResult[] = [];
  if (spec.scripts !== undefined) {
    const scripted = await startScriptedClaudeServer(spec.scripts);
    server = scripted;
    seen = scripted.toolResults;
  } else {
    server = await startAnthropicServer(spec.reply!);
  }
  closers.push(() => server.close());
  const { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: apiKey, ...env } = claudeCliEnv(server.url, spec.world.home);
  const task = agentTask(spec.world.root, {
    provider: 'claude',
    model: spec.model ?? 'claude-sonnet-4-5',
    prompt: 'Do the task.',
    cwd: spec.world.repo,
    ...(spec.effort !== undefined ? { effort: spec.effort } : {}),
    ...(spec.systemPrompt !== undefined ? { systemPrompt: spec.systemPrompt } : {}),
    options: { extraDirs: [spec.world.artifacts], ...spec.options },
    connection: { binaryPath: spec.cli.path, baseUrl, apiKey, env: { ...env, ...spec.env } },
  });
  const { outcome, chunks } = await runAttempt(claudeAdapter, task);
  const results = chunks.filter((c): c is Extract<ProviderChunk, { type: 'tool_result' }> => c.type === 'tool_result');
  return { outcome, chunks, results, server, seen };
}

/** The tool results of calls to `tool` (by the ids of its calls). */
export function resultsOf(run: SessionRun, tool: string): Extract<ProviderChunk, { type: 'tool_result' }>[] {
  const ids = new Set(run.chunks.filter((c) => c.type === 'tool_call' && c.name === tool).map((c) => (c as { id?: string }).id));
  return run.results.filter((r) => ids.has(r.id));
}

/**
 * Whether a request carried `marker` anywhere (system text, tools, messages): a boolean, so a
 * failed assertion does not print the whole request.
 */
export function carries(req: RecordedRequest, marker: string): boolean {
  return JSON.stringify(req.body).includes(marker);
}
