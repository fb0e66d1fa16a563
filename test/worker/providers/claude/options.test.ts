import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessagesReply, RecordedRequest } from '../../../helpers/anthropic-server.js';
import { claudeClis } from '../../../helpers/claude-cli.js';
import { carries, commitAll, makeClaudeWorld, resultsOf, runClaudeSession, type ClaudeWorld } from './session.js';

/**
 * Each node option the registry declares for `claude` reaches the real Claude Code CLI (the
 * pinned and the newest): every test fails when its option does not arrive. One CLI start per
 * behaviour, several options per session.
 */

const echoServer = fileURLToPath(new URL('../../../fixtures/mcp/echo-server.mjs', import.meta.url));

let world: ClaudeWorld;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  world = makeClaudeWorld();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  world.cleanup();
});

/** Calls `name` with `input` once, then says `done`. */
function callOnce(name: string, input: unknown): (req: RecordedRequest) => MessagesReply {
  return (req) =>
    JSON.stringify(req.body.messages).includes('"tool_result"')
      ? { kind: 'stream', blocks: [{ type: 'text', text: 'done' }] }
      : { kind: 'stream', blocks: [{ type: 'tool_use', id: `toolu_${Math.random().toString(36).slice(2)}`, name, input }] };
}

const toolNames = (req: RecordedRequest): string[] => (req.body.tools ?? []).map((t: { name: string }) => t.name).sort();

describe.each(claudeClis)('claude node options ($name)', (cli) => {
  it('allowed_tools, denied_tools, skills, agents, systemPrompt, betas, settingSources, effort and thinking reach the CLI', async () => {
    mkdirSync(join(world.home, '.claude', 'skills', 'zebra'), { recursive: true });
    writeFileSync(join(world.home, '.claude', 'skills', 'zebra', 'SKILL.md'), '---\nname: zebra\ndescription: paints stripes\n---\nZEBRA-SKILL-BODY\n');
    writeFileSync(join(world.repo, 'CLAUDE.md'), 'PROJECT-MEMORY-MARKER\n');
    commitAll(world.repo, 'project memory');
    const run = await runClaudeSession(
      {
        cli,
        world,
        model: 'claude-opus-4-6',
        effort: 'low',
        // Starts like a flag: it must reach the prompt, not the CLI's options.
        systemPrompt: '--dangerously-skip-permissions SYSTEM-PROMPT-MARKER',
        options: {
          permissions: 'workspace',
          allowedTools: ['Read', 'Bash'],
          deniedTools: ['Bash', '--dangerously-skip-permissions'],
          skills: ['zebra'],
          agents: { reviewer: { description: 'REVIEWER-AGENT reviews a change', prompt: 'You review.' } },
          betas: ['context-1m-2025-08-07'],
          settingSources: ['user'],
          thinking: 'disabled',
        },
        reply: callOnce('Skill', { skill: 'zebra' }),
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    const [first, last] = [run.server.requests[0]!, run.server.requests.at(-1)!];
    // The offered set: Read (allowed), Bash taken away (denied), Skill and Agent kept for skills and agents.
    expect(toolNames(first)).toEqual(['Agent', 'Read', 'Skill']);
    const system = JSON.stringify(first.body.system);
    expect(system).toContain('--dangerously-skip-permissions SYSTEM-PROMPT-MARKER');
    expect(system).toContain('load each with the Skill tool before you start: zebra');
    expect(carries(first, 'REVIEWER-AGENT reviews a change'), 'REVIEWER-AGENT reviews a change').toBe(true);
    expect(first.headers['anthropic-beta']).toContain('context-1m-2025-08-07');
    // settingSources [user]: the project's CLAUDE.md is not read (the user's skill still is).
    expect(carries(first, 'PROJECT-MEMORY-MARKER'), 'PROJECT-MEMORY-MARKER').toBe(false);
    expect(first.body.output_config).toEqual({ effort: 'low' });
    // Thinking is on by default for this model; disabled, the request asks for none.
    expect(first.body.thinking === undefined || first.body.thinking.type === 'disabled', JSON.stringify(first.body.thinking)).toBe(true);
    // The skill loaded through the CLI's Skill tool.
    expect(resultsOf(run, 'Skill')[0]!.isError ?? false).toBe(false);
    expect(carries(last, 'ZEBRA-SKILL-BODY'), 'ZEBRA-SKILL-BODY').toBe(true);
  });

  it('mcp: only the node’s servers, offered and called ($VAR expanded); hooks: a response hook and a command hook run', async () => {
    const log = join(world.root, 'echo.log');
    writeFileSync(join(world.repo, 'tools.json'), JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [echoServer], env: { MCP_ECHO_LOG: '$ECHO_LOG' } } } }));
    // The repository's own .mcp.json is not used (--strict-mcp-config).
    writeFileSync(join(world.repo, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: process.execPath, args: [echoServer] } } }));
    commitAll(world.repo, 'mcp files');
    const hostile = "HOOK-CONTEXT-MARKER '$(touch pwned)' `touch pwned2`";
    const run = await runClaudeSession(
      {
        cli,
        world,
        env: { ECHO_LOG: log },
        options: {
          permissions: 'workspace',
          mcp: 'tools.json',
          hooks: {
            PostToolUse: [
              { matcher: 'mcp__echo__echo', response: { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: hostile } } },
              { matcher: 'mcp__echo__echo', command: 'touch hook-ran.txt' },
            ],
          },
        },
        reply: callOnce('mcp__echo__echo', { text: 'ping' }),
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    const [first, last] = [run.server.requests[0]!, run.server.requests.at(-1)!];
    // 2.1.100 lists the tool in the request's tools; newer versions name it among their deferred tools.
    expect(carries(first, 'mcp__echo__echo'), 'mcp__echo__echo').toBe(true);
    expect(carries(first, 'mcp__other__'), 'mcp__other__').toBe(false);
    const result = resultsOf(run, 'mcp__echo__echo')[0]!;
    expect(result.isError ?? false, result.output).toBe(false);
    expect(result.output).toBe('echo: ping');
    expect(JSON.parse(readFileSync(log, 'utf8').trim())).toMatchObject({ name: 'echo', arguments: { text: 'ping' } });
    expect(carries(last, 'HOOK-CONTEXT-MARKER'), 'HOOK-CONTEXT-MARKER').toBe(true);
    expect(existsSync(join(world.repo, 'hook-ran.txt'))).toBe(true);
    for (const f of ['pwned', 'pwned2']) expect(existsSync(join(world.repo, f))).toBe(false);
    // The servers' file held the expanded environment: it is gone with the CLI.
    expect(existsSync(join(world.root, 'attempt', 'mcp.json'))).toBe(false);
  });

  it('maxBudgetUsd stops the CLI (budget_exceeded); allowed_tools [] offers no tools; a thinking budget is the request’s', async () => {
    const run = await runClaudeSession(
      {
        cli,
        world,
        options: { permissions: 'workspace', maxBudgetUsd: 0.01, allowedTools: [], thinking: { type: 'enabled', budgetTokens: 2048 } },
        reply: () => ({ kind: 'stream', blocks: [{ type: 'text', text: 'expensive' }], usage: { input_tokens: 100_000, output_tokens: 1_000 } }),
      },
      closers,
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.providerFailure?.class).toBe('budget_exceeded');
    const first = run.server.requests[0]!;
    expect(toolNames(first)).toEqual([]);
    expect(first.body.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });
  });

  it('fallbackModel answers when the model is overloaded; effort xhigh reaches the CLIs that know it and breaks none', async () => {
    const run = await runClaudeSession(
      {
        cli,
        world,
        model: 'claude-opus-4-7',
        effort: 'xhigh',
        options: { permissions: 'workspace', fallbackModel: 'claude-sonnet-4-5' },
        reply: (req) =>
          String(req.body.model).includes('opus')
            ? { kind: 'error', status: 529, type: 'overloaded_error', message: 'Overloaded' }
            : { kind: 'stream', blocks: [{ type: 'text', text: 'from the fallback' }] },
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    expect(run.outcome.output).toBe('from the fallback');
    expect(run.outcome.end.resolvedModel).toBe('claude-sonnet-4-5');
    const models = run.server.requests.map((r) => r.body.model);
    expect(models[0]).toBe('claude-opus-4-7');
    expect(models.at(-1)).toBe('claude-sonnet-4-5');
    expect(run.server.requests[0]!.body.output_config).toEqual(cli.knowsXhigh ? { effort: 'xhigh' } : undefined);
  });

  it('sandbox reaches the CLI, which refuses to start without a working sandbox: a configuration failure, no call', async () => {
    const run = await runClaudeSession(
      { cli, world, options: { permissions: 'workspace', sandbox: { enabledPlatforms: [] } }, reply: () => ({ kind: 'stream', blocks: [{ type: 'text', text: 'unsandboxed' }] }) },
      closers,
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.providerFailure?.class, run.outcome.providerFailure?.evidence).toBe('misconfigured');
    expect(run.outcome.providerFailure?.evidence).toMatch(/sandbox required but unavailable/i);
    expect(run.server.requests).toHaveLength(0);
  });
});

describe('claude node options that cannot be used', () => {
  it('fails the node before any call when its mcp file is missing, naming the file', async () => {
    const run = await runClaudeSession(
      { cli: claudeClis[0]!, world, options: { permissions: 'workspace', mcp: 'missing-tools.json' }, reply: () => ({ kind: 'stream', blocks: [{ type: 'text', text: 'no' }] }) },
      closers,
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.providerFailure?.class).toBe('misconfigured');
    expect(run.outcome.providerFailure?.evidence).toContain('the mcp file missing-tools.json does not exist');
    expect(run.server.requests).toHaveLength(0);
  });
});
