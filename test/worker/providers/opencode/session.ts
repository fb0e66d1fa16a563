import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentOptions } from '../../../../src/shared/providers/agent-options.js';
import { packageBin } from '../../../../src/worker/providers/common/cli-process.js';
import { opencodeAdapter } from '../../../../src/worker/providers/opencode/adapter.js';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import { chatCompletionsAgent, opencodeVocabulary, type ChatAgentScript, type RecordedToolResult } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer, type OpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt } from '../agent-harness.js';

/**
 * One scripted OpenCode session for the permission and option tests: a real git repository as
 * the working directory (one committed file, `README.md`), an artifacts folder and a folder
 * outside both, the local Chat Completions server playing `scripts`, and the real CLI of the
 * version under test driven by the real adapter.
 */

/** The two OpenCode builds the adapter is tested with: the pinned dev dependency and the newest. */
export const opencodeBuilds = [
  { version: packageVersion('opencode-linux-x64'), binaryPath: undefined },
  { version: packageVersion('opencode-linux-x64-latest'), binaryPath: packageBin('opencode-linux-x64-latest/bin/opencode') },
] as const;

function packageVersion(name: string): string {
  const file = packageBin(`${name}/package.json`);
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : `${name} (not installed)`;
}

export interface OpencodeSession {
  repo: string;
  artifacts: string;
  outside: string;
  server: OpenAiServer;
  toolResults: RecordedToolResult[];
  run(options: Partial<AgentOptions> & Pick<AgentOptions, 'permissions'>, extra?: { effort?: 'high'; systemPrompt?: string; env?: Record<string, string> }): ReturnType<typeof runAttempt>;
}

/** The repository, folders and server of one session under `dir`; `close` the server after. */
export async function openOpencodeSession(dir: string, binaryPath: string | undefined, scripts: ChatAgentScript[]): Promise<OpencodeSession> {
  const repo = join(dir, 'repo');
  const artifacts = join(dir, 'artifacts');
  const outside = join(dir, 'outside');
  for (const d of [repo, artifacts, outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(repo, 'README.md'), 'hello\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=test', '-c', 'user.email=test@localhost', 'commit', '-q', '-m', 'init');
  const agent = chatCompletionsAgent(scripts, { fallback: opencodeVocabulary });
  const server = await startOpenAiServer(agent.reply);
  return {
    repo,
    artifacts,
    outside,
    server,
    toolResults: agent.toolResults,
    run: (options, { env, ...extra } = {}) =>
      runAttempt(
        opencodeAdapter,
        agentTask(dir, {
          provider: 'opencode',
          model: 'oc-test',
          prompt: 'Do the task.',
          cwd: repo,
          options: { extraDirs: [artifacts], ...options },
          ...extra,
          // A loaded 2-core machine can take OpenCode 20 s to start; the watchdogs are not under test here.
          firstEventTimeoutMs: 50_000,
          idleTimeoutMs: 50_000,
          // HOME is the test's own: the adapter must never write to $HOME/.config or $HOME/.local.
          connection: { baseUrl: server.url, apiKey: 'sk-opencode-session', env: { HOME: dir, ...env }, ...(binaryPath ? { binaryPath } : {}) },
        }),
      ),
  };
}

/** The tool results of a run's chunks. */
export function toolResultsOf(chunks: ProviderChunk[]): Extract<ProviderChunk, { type: 'tool_result' }>[] {
  return chunks.filter((c): c is Extract<ProviderChunk, { type: 'tool_result' }> => c.type === 'tool_result');
}

/** The subjects of the repository's commits, newest first. */
export function commitSubjects(repo: string): string[] {
  return execFileSync('git', ['log', '--format=%s'], { cwd: repo }).toString().trim().split('\n');
}

/** The names of the tools a request offered. */
export function offeredTools(body: { tools?: { function?: { name?: string } }[] }): string[] {
  return (body.tools ?? []).map((t) => t.function?.name ?? '').sort();
}
