import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { cloneLocally, git, makeBareRemote } from '../api/codebases/git-fixtures.js';
import type { AgentScript } from './agent-script.js';
import { startScriptedClaudeServer, type AnthropicServer, type SeenToolResult } from './anthropic-server.js';
import { claudeCliEnv, pinnedClaudeCli } from './claude-cli.js';
import { startServer, type RunningServer } from './server.js';
import type { TempHome } from './temp-home.js';
import { waitFor } from './wait-for.js';
import { getRun } from './workflows.js';

/**
 * Whole workflows run as a user runs them: the real `cairn serve`, a repository the user cloned
 * and registered, and the real Claude Code CLI (the pinned `cli.js`) talking to a local Messages
 * API server that plays one scripted coding agent per node (agent-script.ts). The tests then
 * judge the run where a user would look: the worktree, the run's branch, the artifacts, the
 * records' tool calls, and the user's own checkout.
 */

export interface ClaudeWorkflowBench {
  root: string;
  /** The user's clone, registered as codebase `acme/widget`; origin is a bare repository in `root`. */
  clone: string;
  /** The bare `origin` of the clone. */
  origin: string;
  server: RunningServer;
  messages: AnthropicServer & { toolResults: SeenToolResult[] };
}

export const codebaseId = 'acme/widget';

/** A tiny Node project with a test, run by `npm test` (`node --test`): what a validate step runs. */
export const widgetProject: Record<string, string> = {
  'README.md': '# widget\n',
  'package.json': `${JSON.stringify({ name: 'widget', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'src/greet.js': 'export function greet(name) {\n  return `hello ${name}`;\n}\n',
  'test/greet.test.js': "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { greet } from '../src/greet.js';\n\ntest('greets', () => assert.equal(greet('ada'), 'hello ada'));\n",
};

/**
 * A temp folder with a bare `origin` holding `files` on main, the user's clone of it registered
 * as `acme/widget`, the scripted Messages API, and `cairn serve` pointed at both (with `env` on
 * top, e.g. PATH or a GitHub API). Everything is closed and removed with the home.
 */
export async function startClaudeWorkflowBench(
  home: TempHome,
  scripts: readonly AgentScript[],
  opts: { files?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<ClaudeWorkflowBench> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-flow-')));
  home.defer(() => rm(root, { recursive: true, force: true }));
  const originUrl = makeBareRemote(root, 'acme', 'widget', opts.files);
  const clone = cloneLocally(root, originUrl, 'widget');
  const messages = await startScriptedClaudeServer(scripts);
  home.defer(() => messages.close());
  const server = await startServer(home, {
    ...claudeCliEnv(messages.url, join(root, 'cli-home')),
    CLAUDE_BIN_PATH: pinnedClaudeCli,
    // The user's git identity, as their own git configuration would give it.
    GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com',
    ...opts.env,
  });
  const added = await fetch(`${server.url}/api/codebases`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: clone }),
  });
  expect(added.status, await added.clone().text()).toBeLessThan(300);
  return { root, clone, origin: join(root, 'remotes', 'acme', 'widget.git'), server, messages };
}

/** The statuses a run ends in. */
const endStatuses = ['completed', 'failed', 'cancelled'];

/**
 * The run and all its events once its status is `status` and `until` (when given) holds for its
 * events, or once it ended otherwise (the test's assertion on the status then says how): AI runs
 * take seconds per node.
 */
export async function waitForRun(
  url: string,
  runId: string,
  status: string,
  opts: { until?: (events: Record<string, any>[]) => boolean; timeoutMs?: number } = {},
) {
  return waitFor(async () => {
    const { run } = await getRun(url, runId);
    const ended = run.status !== status && endStatuses.includes(run.status as string);
    if (run.status !== status && !ended) return undefined;
    const events = await allEvents(url, runId);
    return ended || opts.until === undefined || opts.until(events) ? { run, events } : undefined;
  }, { what: `run ${runId} to be ${status}`, timeoutMs: opts.timeoutMs ?? 150_000, intervalMs: 100 });
}

/** The errors of the run's failed nodes, for a failure message. */
export function failures(events: readonly Record<string, any>[]): string {
  return JSON.stringify(events.filter((e) => e.event_type === 'node_failed').map((e) => `${e.step_name}: ${e.data.error}`));
}

/** How many times the run asked a person (approval gates and interactive loops). */
export function asks(events: readonly Record<string, any>[]): number {
  return events.filter((e) => e.event_type === 'approval_requested').length;
}

/** Every event of the run, page by page. */
export async function allEvents(url: string, runId: string): Promise<Record<string, any>[]> {
  const events: Record<string, any>[] = [];
  let after = 0;
  for (;;) {
    const res = await fetch(`${url}/api/workflows/runs/${runId}?limit=2000&afterSeq=${after}`);
    const page = (await res.json()) as { events: Record<string, any>[]; nextAfterSeq: number | null };
    events.push(...page.events);
    if (page.nextAfterSeq === null) return events;
    after = page.nextAfterSeq;
  }
}

/** The execution record of the node's (or loop body's) last completed attempt at `path`. */
export function completedRecord(events: readonly Record<string, any>[], path: string): Record<string, any> {
  const done = events.filter((e) => e.step_name === path && e.event_type === 'node_completed');
  expect(done.length, `a node_completed event at ${path}`).toBeGreaterThan(0);
  return done.at(-1)!.data.execution;
}

/**
 * No tool call of the run was refused: each AI attempt's record counts none, and no
 * `tool_completed` event says `refused`. Answers the number of AI attempts it checked.
 */
export function expectNothingRefused(events: readonly Record<string, any>[]): number {
  const refusedEvents = events.filter((e) => e.event_type === 'tool_completed' && e.data.refused === true);
  expect(refusedEvents.map((e) => `${e.step_name}: ${e.data.tool_name} ${e.data.output}`)).toEqual([]);
  const agentRecords = events
    .filter((e) => e.event_type === 'node_completed' && e.data.execution?.node?.kind === 'agent')
    .map((e) => e.data.execution);
  for (const record of agentRecords) expect(record.diagnostics?.toolCalls?.refused ?? 0, `refusals of ${record.path}`).toBe(0);
  return agentRecords.length;
}

/** What a user sees of their checkout: its branch, its commit, its status. */
export function checkoutState(dir: string): { branch: string; head: string; status: string } {
  return {
    branch: git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(),
    head: git(dir, 'rev-parse', 'HEAD').trim(),
    status: git(dir, 'status', '--porcelain', '--untracked-files=all'),
  };
}

/**
 * Answers the gate (or interactive loop) a paused run waits at, as `POST …/approve|reject` with
 * the body a user's client sends; an approve without a comment sends no body.
 */
export async function answerGate(url: string, runId: string, answer: { approve?: string } | { reject: string }): Promise<void> {
  const [op, body] = 'reject' in answer ? ['reject', { reason: answer.reject }] : ['approve', answer.approve === undefined ? undefined : { comment: answer.approve }];
  const res = await fetch(`${url}/api/workflows/runs/${runId}/${op}`, {
    method: 'POST', ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const upstreamDefaults = fileURLToPath(new URL('../fixtures/corpus/upstream-defaults/', import.meta.url));

/**
 * A repository that uses the upstream system's default workflows: `widgetProject` with the
 * scripts those workflows run (`bun run type-check`, `lint`, `format:check`, `test`, `validate`),
 * and the named workflows with the commands they use copied unchanged from the corpus into its
 * `.archon/` folders, committed as a team using them would.
 */
export function upstreamProject(workflows: readonly string[], commands: readonly string[] = []): Record<string, string> {
  const scripts = { 'type-check': 'node --check src/greet.js', lint: 'node --check src/greet.js', 'format:check': 'true', test: 'node --test', validate: 'node --test' };
  const files: Record<string, string> = {
    ...widgetProject,
    'package.json': `${JSON.stringify({ name: 'widget', private: true, type: 'module', scripts }, null, 2)}\n`,
  };
  for (const name of workflows) files[`.archon/workflows/${name}.yaml`] = readFileSync(join(upstreamDefaults, 'workflows', `${name}.yaml`), 'utf8');
  for (const name of commands) files[`.archon/commands/${name}.md`] = readFileSync(join(upstreamDefaults, 'commands', `${name}.md`), 'utf8');
  return files;
}

/** PATH with the `gh` stand-in (test/fixtures/gh/gh) first, for `cairn serve` only. */
export function pathWithGhStandIn(): string {
  return `${fileURLToPath(new URL('../fixtures/gh/', import.meta.url))}:${process.env.PATH ?? ''}`;
}
