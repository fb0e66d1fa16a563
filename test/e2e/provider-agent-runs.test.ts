import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from '../helpers/agent-script.js';
import { chatCompletionsAgent, copilotVocabulary, opencodeVocabulary, piVocabulary, type ToolVocabulary } from '../helpers/chat-completions-agent.js';
import { geminiAgent, startGeminiServer } from '../helpers/gemini-server.js';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { agentReplies, startResponsesServer } from '../helpers/responses-server.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * Every CLI provider besides Claude Code (which test/e2e/claude-agent-run.test.ts covers) on a
 * registered codebase through `cairn serve`, the real CLI playing a scripted agent against a local
 * server in its vendor's wire format: at `workspace` (the default) a node writes a file, commits it
 * on the run's branch and writes the run's $ARTIFACTS_DIR; a `read_only` node after it is refused
 * its write and its command, and its record says so. The user's own checkout is untouched. The
 * provider's connection comes from the server's environment, as a user would set it.
 */

const require = createRequire(import.meta.url);

interface StandIn {
  url: string;
  close(): Promise<void>;
}

interface ProviderCase {
  provider: string;
  model: string;
  /** A local server playing `scripts` in the provider's wire format. */
  serve(scripts: AgentScript[]): Promise<StandIn>;
  /** The server environment that points the provider's CLI at `url`. */
  env(url: string): Record<string, string>;
}

function chatServer(vocabulary: ToolVocabulary) {
  return async (scripts: AgentScript[]) => startOpenAiServer(chatCompletionsAgent(scripts, { vocabularies: [vocabulary] }).reply);
}

const cases: ProviderCase[] = [
  {
    provider: 'codex',
    model: 'gpt-5-test',
    serve: (scripts) => startResponsesServer(agentReplies(scripts)),
    env: (url) => ({ CODEX_BIN_PATH: require.resolve('@openai/codex/bin/codex.js'), OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-codex-test' }),
  },
  {
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    serve: (scripts) => startGeminiServer(geminiAgent(scripts)),
    env: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'gemini-test-key' }),
  },
  { provider: 'opencode', model: 'oc-test', serve: chatServer(opencodeVocabulary), env: (url) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-oc-test' }) },
  { provider: 'pi', model: 'pi-test', serve: chatServer(piVocabulary), env: (url) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-pi-test' }) },
  {
    provider: 'copilot',
    model: 'cp-test',
    serve: chatServer(copilotVocabulary),
    env: (url) => ({ COPILOT_PROVIDER_BASE_URL: url, COPILOT_PROVIDER_API_KEY: 'sk-cp-test' }),
  },
];

const scripts: AgentScript[] = [
  {
    match: /CHANGE-TASK/,
    steps: [
      { tool: 'read', path: 'README.md' },
      { tool: 'write', path: 'notes.txt', content: 'from the agent\n' },
      { tool: 'run', command: "git add notes.txt && git -c user.name=agent -c user.email=agent@localhost commit -q -m 'agent notes'" },
      { tool: 'write', path: '{artifacts}/report.md', content: 'reported\n' },
      { say: 'changed' },
    ],
  },
  {
    match: /LOOK-TASK/,
    // An edit, not a write: Copilot's `create` answers "Path already exists" for a file that exists, before any permission check.
    steps: [{ tool: 'read', path: 'notes.txt' }, { tool: 'edit', path: 'notes.txt', old: 'from the agent', new: 'overwritten' }, { tool: 'run', command: 'rm notes.txt' }, { say: 'looked' }],
  },
];

let home: TempHome;
let root: string;
let standIn: StandIn | undefined;
beforeEach(async () => {
  home = await makeTempHome();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-provider-run-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
});
afterEach(async () => {
  await home.close();
  await standIn?.close();
  standIn = undefined;
});

describe.each(cases)('$provider on a registered codebase through cairn serve', ({ provider, model, serve, env }) => {
  it('a workspace node commits on the run’s branch and writes $ARTIFACTS_DIR; a read_only node’s write and command are refused and recorded', async () => {
    const clone = cloneLocally(root, makeBareRemote(root, 'acme', 'widget'), 'widget');
    const userHead = git(clone, 'rev-parse', 'HEAD');
    standIn = await serve(scripts);
    const server = await startServer(home, { ...env(standIn.url), HOME: join(root, 'cli-home') });
    const added = await fetch(`${server.url}/api/codebases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }) });
    expect(added.status).toBeLessThan(300);
    await writeHomeWorkflow(home, 'agent-commits', `name: agent-commits
description: a node commits in the run's worktree; a read-only one cannot change it
provider: ${provider}
model: ${model}
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
    }, { what: `the ${provider} run to end`, timeoutMs: 150_000 });
    const record = (node: string) => events.find((e) => e.step_name === node && ['node_completed', 'node_failed'].includes(e.event_type))?.data.execution;
    expect({ status: run.status, change: record('change')?.error, look: record('look')?.error }).toEqual({ status: 'completed', change: undefined, look: undefined });

    const worktree = run.working_path as string;
    expect(await readFile(join(worktree, 'notes.txt'), 'utf8')).toBe('from the agent\n');
    expect(git(worktree, 'log', '--format=%s', '-1')).toBe('agent notes\n');
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).not.toBe('main\n');
    // The user's checkout: same commit, no new file.
    expect(git(clone, 'rev-parse', 'HEAD')).toBe(userHead);
    expect(existsSync(join(clone, 'notes.txt'))).toBe(false);

    const change = record('change');
    expect(change.binding).toMatchObject({ provider, permissions: 'workspace' });
    expect(change.diagnostics.toolCalls).toMatchObject({ total: 4, refused: 0 });
    const look = record('look');
    expect(look.binding.permissions).toBe('read_only');
    expect(look.diagnostics.toolCalls).toMatchObject({ total: 3, failed: 0, refused: 2 });

    const artifacts = join(home.home, 'workspaces', 'acme', 'widget', 'artifacts', 'runs', runId);
    expect(await readFile(join(artifacts, 'report.md'), 'utf8')).toBe('reported\n');
    expect(existsSync(join(worktree, 'report.md'))).toBe(false);
  }, 180_000); // the run may take up to 150 s on a loaded machine (the wait above)
});
