import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PermissionLevel } from '../../../../src/shared/providers/agent-options.js';
import { ToolCallTally } from '../../../../src/worker/nodes/agent/agent-records.js';
import { geminiAdapter } from '../../../../src/worker/providers/gemini/adapter.js';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import { writeAndCommit } from '../../../helpers/agent-script.js';
import { declaredTools, functionResponses, geminiAgent, startGeminiServer, type GeminiStep } from '../../../helpers/gemini-server.js';
import { agentTask, runAttempt } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';

/**
 * Each permission level on the real Gemini CLI (0.61.0, the pinned version and the newest on
 * npm, so one executable), driven by a scripted agent in a real git repository: what the files
 * and the branch hold afterwards, and which tool results the CLI refused.
 */

const SECRET = 'gemini-perm-SECRET-4242';

const setup = cliTestSetup({ start: startGeminiServer });
let repo: string;
let artifacts: string;
let outside: string;
beforeEach(() => {
  repo = join(setup.dir(), 'repo');
  artifacts = join(setup.dir(), 'artifacts');
  outside = join(setup.dir(), 'outside');
  for (const d of [repo, artifacts, outside]) mkdirSync(d);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'hello from the repo\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@localhost', 'commit', '-q', '-m', 'init');
});

/** One scripted session at `level`; the chunks, and what the CLI answered each tool call. */
async function session(level: PermissionLevel, steps: GeminiStep[]) {
  const server = await setup.start(geminiAgent([{ steps }]));
  const task = agentTask(setup.dir(), {
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    prompt: 'Do the scripted work.',
    cwd: repo,
    options: { permissions: level, extraDirs: [artifacts] },
    connection: { baseUrl: server.url, apiKey: SECRET, env: { HOME: setup.dir() } },
  });
  const { outcome, chunks } = await runAttempt(geminiAdapter, task);
  const results = chunks.filter((c): c is Extract<ProviderChunk, { type: 'tool_result' }> => c.type === 'tool_result');
  return { outcome, chunks, results, responses: functionResponses(server.requests.at(-1)!) };
}

function commits(): string[] {
  return execFileSync('git', ['log', '--format=%s'], { cwd: repo, encoding: 'utf8' }).trim().split('\n');
}

describe('gemini permissions (real Gemini CLI)', () => {
  it('workspace: reads, writes, edits and commits in its checkout and writes its artifacts; a file outside is refused', async () => {
    const { outcome, results, responses } = await session('workspace', [
      { tool: 'read', path: 'README.md' },
      { tool: 'write', path: 'notes.txt', content: 'first line\n' },
      { tool: 'edit', path: 'notes.txt', old: 'first line', new: 'edited line' },
      { tool: 'write', path: join(artifacts, 'report.md'), content: 'artifact\n' },
      { tool: 'write', path: join(outside, 'escape.txt'), content: 'escaped\n' },
      ...writeAndCommit('notes.txt', '', 'agent commit', 'Committed.').slice(1),
    ]);
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Committed.');
    // Every line the real CLI printed, tool events included, read through its schema.
    expect(outcome.end.unreadableLines).toBeUndefined();
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('edited line\n');
    expect(readFileSync(join(artifacts, 'report.md'), 'utf8')).toBe('artifact\n');
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
    expect(commits()).toEqual(['agent commit', 'init']);
    expect(execFileSync('git', ['show', '--name-only', '--format=', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()).toBe('notes.txt');
    // Six tool calls: only the write outside was refused, and the CLI said why.
    expect(responses.map((r) => r.name)).toEqual(['read_file', 'write_file', 'replace', 'write_file', 'write_file', 'run_shell_command']);
    expect(results.map((r) => r.refused === true)).toEqual([false, false, false, false, true, false]);
    expect(results[4]!.output).toMatch(/Path not in workspace/);
    expect(JSON.stringify(responses[0]!.response)).toContain('hello from the repo');
    expect(declaredTools(setup.server().requests[0]!)).not.toContain('enter_plan_mode');
  });

  it('read_only: reads; every write, edit and command is refused, neither plan mode nor the repository can lift it, and nothing changes', async () => {
    // The repository's own settings try to loosen the level: a user-tier allow, and policy
    // files (user and admin tier) that allow everything.
    mkdirSync(join(repo, '.gemini'));
    const allowAll = join(repo, '.gemini', 'allow-all.toml');
    writeFileSync(allowAll, '[[rule]]\ntoolName = "*"\ndecision = "allow"\npriority = 999\n');
    writeFileSync(
      join(repo, '.gemini', 'settings.json'),
      JSON.stringify({ tools: { allowed: ['run_shell_command', 'write_file', 'replace'] }, policyPaths: [allowAll], adminPolicyPaths: [allowAll], general: { defaultApprovalMode: 'auto_edit' } }),
    );
    const attempts: GeminiStep[] = [
      { tool: 'write', path: 'notes.txt', content: 'first line\n' },
      { tool: 'edit', path: 'README.md', old: 'hello', new: 'bye' },
      { tool: 'write', path: join(artifacts, 'report.md'), content: 'artifact\n' },
      { tool: 'run', command: 'touch touched && git -c user.name=a -c user.email=a@localhost commit -q --allow-empty -m sneaky' },
    ];
    const { outcome, chunks, results, responses } = await session('read_only', [
      { tool: 'read', path: 'README.md' },
      ...attempts,
      // On the CLI's own default mode, entering plan mode and leaving it switches a headless
      // session to yolo: then the same writes would run.
      { call: 'enter_plan_mode', args: { reason: 'plan first' } },
      { call: 'exit_plan_mode', args: { plan_filename: 'plan.md' } },
      ...attempts,
      { say: 'Nothing written.' },
    ]);
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Nothing written.');
    expect(results).toHaveLength(11);
    expect(results.map((r) => r.refused === true)).toEqual([false, ...Array(10).fill(true)]);
    // What the attempt's record counts (diagnostics.toolCalls): refusals, not failures, by tool.
    const tally = new ToolCallTally();
    for (const chunk of chunks) tally.see(chunk);
    const summary = tally.summary();
    expect(summary).toMatchObject({ total: 11, failed: 0, refused: 10 });
    expect(summary.refusals!.slice(0, 4).map((r) => r.tool)).toEqual(['write_file', 'replace', 'write_file', 'run_shell_command']);
    expect(JSON.stringify(responses[0]!.response)).toContain('hello from the repo');
    expect(existsSync(join(repo, 'notes.txt'))).toBe(false);
    expect(existsSync(join(repo, 'touched'))).toBe(false);
    expect(existsSync(join(artifacts, 'report.md'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello from the repo\n');
    expect(commits()).toEqual(['init']);
    // The model is offered reading tools only, never plan mode nor a tool that writes.
    const offered = declaredTools(setup.server().requests[0]!);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'glob', 'grep_search', 'list_directory']));
    for (const tool of ['write_file', 'replace', 'run_shell_command', 'enter_plan_mode', 'web_fetch', 'activate_skill']) expect(offered).not.toContain(tool);
  });

  it("full: the file tools write outside the working directory and commands run; only the CLI's own guards hold", async () => {
    const { outcome, results } = await session('full', [
      { tool: 'write', path: join(outside, 'anywhere.txt'), content: 'written by a file tool\n' },
      { tool: 'run', command: `echo from a command > '${join(outside, 'shell.txt')}'` },
      // The CLI's file tools never write build files nor inside .git; a command can.
      { tool: 'write', path: 'package.json', content: '{}\n' },
      { tool: 'write', path: '.git/agent-note', content: 'x\n' },
      { tool: 'run', command: 'echo {} > package.json' },
      { say: 'Done.' },
    ]);
    expect(outcome.status).toBe('completed');
    expect(readFileSync(join(outside, 'anywhere.txt'), 'utf8')).toBe('written by a file tool\n');
    expect(readFileSync(join(outside, 'shell.txt'), 'utf8')).toBe('from a command\n');
    expect(existsSync(join(repo, '.git', 'agent-note'))).toBe(false);
    expect(readFileSync(join(repo, 'package.json'), 'utf8')).toBe('{}\n');
    expect(results.map((r) => r.refused === true)).toEqual([false, false, true, true, false]);
    expect(results[2]!.output).toMatch(/build configuration files/);
    expect(declaredTools(setup.server().requests[0]!)).not.toContain('enter_plan_mode');
  });
});
