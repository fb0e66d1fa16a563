import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../../../src/shared/providers/agent-options.js';
import { geminiAdapter } from '../../../../src/worker/providers/gemini/adapter.js';
import type { ProviderChunk } from '../../../../src/worker/providers/provider-adapter.js';
import { declaredTools, functionResponses, geminiAgent, startGeminiServer, systemText, type GeminiStep } from '../../../helpers/gemini-server.js';
import { filesHolding } from '../chat-cli-cases.js';
import { agentTask, runAttempt, spawnProbe } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';

/**
 * Each node option the registry declares for `gemini` reaching the real Gemini CLI (0.61.0):
 * seen in what the CLI sends its model (the tools it offers, its system instruction, its
 * generation config) and in what its tools did.
 */

const ECHO_SERVER = resolve('test/fixtures/mcp/echo-server.mjs');

const setup = cliTestSetup({ start: startGeminiServer });

async function session(steps: GeminiStep[], options: Partial<AgentOptions>, overrides: Parameters<typeof agentTask>[1] = {}, env: Record<string, string> = {}) {
  const server = await setup.start(geminiAgent([{ steps }]));
  const task = agentTask(setup.dir(), {
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    prompt: 'Use the tools as scripted.',
    options: { permissions: 'workspace', ...options },
    connection: { baseUrl: server.url, apiKey: 'k', env: { HOME: setup.dir(), ...env } },
    ...overrides,
  });
  const probe = spawnProbe();
  const { outcome, chunks } = await runAttempt(geminiAdapter, task, { onSpawned: probe.onSpawned });
  const results = chunks.filter((c): c is Extract<ProviderChunk, { type: 'tool_result' }> => c.type === 'tool_result');
  return { outcome, results, probe };
}

describe('gemini node options (real Gemini CLI)', () => {
  it('allowed_tools: the model is offered the tools named and nothing else; another is refused', async () => {
    const { outcome, results } = await session(
      [
        { tool: 'read', path: 'seed.txt' },
        { tool: 'write', path: 'new.txt', content: 'x' },
        { say: 'done' },
      ],
      { allowedTools: ['read_file'] },
    );
    expect(outcome.status).toBe('completed');
    expect(declaredTools(setup.server().requests[0]!)).toEqual(['read_file']);
    expect(results.map((r) => r.refused === true)).toEqual([false, true]);
    expect(existsSync(join(setup.dir(), 'new.txt'))).toBe(false);
  });

  it('allowed_tools at read_only: only the reading tools among them are offered', async () => {
    const { outcome } = await session([{ say: 'read only' }], { permissions: 'read_only', allowedTools: ['read_file', 'write_file', 'run_shell_command'] });
    expect(outcome.status).toBe('completed');
    expect(declaredTools(setup.server().requests[0]!)).toEqual(['read_file']);
  });

  it("mcp: the node's server is offered and called; denied_tools takes a tool away; the server's secret does not stay in the home", async () => {
    const log = join(setup.dir(), 'echo.log');
    writeFileSync(
      join(setup.dir(), 'mcp.json'),
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER], env: { MCP_ECHO_LOG: log, ECHO_TOKEN: '${ECHO_TOKEN}' } } } }),
    );
    const sessionDir = join(setup.dir(), 'node-session');
    const { outcome, results } = await session(
      [
        { call: 'mcp_echo_echo', args: { text: 'ping from gemini' } },
        { tool: 'run', command: 'touch ran' },
        { say: 'echoed' },
      ],
      { mcp: 'mcp.json', deniedTools: ['run_shell_command'] },
      { sessionDir },
      { ECHO_TOKEN: 'mcp-SECRET-9191' },
    );
    expect(outcome.status).toBe('completed');
    const offered = declaredTools(setup.server().requests[0]!);
    expect(offered).toContain('mcp_echo_echo');
    expect(offered).toContain('write_file');
    expect(offered).not.toContain('run_shell_command');
    expect(readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).arguments)).toEqual([{ text: 'ping from gemini' }]);
    expect(JSON.stringify(functionResponses(setup.server().requests.at(-1)!)[0])).toContain('echo: ping from gemini');
    expect(results.map((r) => r.refused === true)).toEqual([false, true]);
    expect(existsSync(join(setup.dir(), 'ran'))).toBe(false);
    expect(filesHolding(sessionDir, 'mcp-SECRET-9191')).toEqual([]);
  });

  it('mcp at read_only: a tool that declares readOnlyHint is offered and runs; another is refused', async () => {
    const log = join(setup.dir(), 'echo.log');
    const server_ = (readOnly: boolean) => ({ command: process.execPath, args: [ECHO_SERVER], env: { MCP_ECHO_LOG: log, MCP_ECHO_READ_ONLY: readOnly ? '1' : '0' } });
    writeFileSync(join(setup.dir(), 'mcp.json'), JSON.stringify({ reader: server_(true), writer: server_(false) }));
    const { outcome, results } = await session(
      [
        { call: 'mcp_reader_echo', args: { text: 'may read' } },
        { call: 'mcp_writer_echo', args: { text: 'may not' } },
        { say: 'done' },
      ],
      { permissions: 'read_only', mcp: 'mcp.json' },
    );
    expect(outcome.status).toBe('completed');
    const offered = declaredTools(setup.server().requests[0]!);
    expect(offered).toContain('mcp_reader_echo');
    expect(offered).not.toContain('mcp_writer_echo');
    expect(results.map((r) => r.refused === true)).toEqual([false, true]);
    expect(readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l).arguments)).toEqual([{ text: 'may read' }]);
  });

  it("allowed_tools: [] offers no tool; systemPrompt joins the CLI's instructions as written; effort sets the thinking budget", async () => {
    const systemPrompt = 'Cairn house rule: sign every answer with -- heron. Mention @alice on reviews.';
    const { outcome } = await session([{ say: 'no tools' }], { allowedTools: [] }, { systemPrompt, effort: 'high' });
    expect(outcome.output).toBe('no tools');
    const request = setup.server().requests[0]!;
    expect(declaredTools(request)).toEqual([]);
    expect(systemText(request)).toContain('You are');
    expect(systemText(request).replaceAll('\u200b', '')).toContain(systemPrompt);
    // The CLI's own default budget is 8192.
    expect(request.body.generationConfig.thinkingConfig).toMatchObject({ thinkingBudget: 24576 });
  });

  it('fails before starting the CLI for a tool name it cannot take, an mcp file that is not there, or a policy path it would split', async () => {
    const cases: [Partial<AgentOptions>, Parameters<typeof agentTask>[1], RegExp][] = [
      [{ deniedTools: ['run_shell_command"\n[[rule]]'] }, {}, /^denied_tools entry "run_shell_command\\"\\n\[\[rule\]\]" is not a Gemini CLI tool name/],
      [{ allowedTools: ['mcp__echo__echo'] }, {}, /allowed_tools entry "mcp__echo__echo"/],
      [{ mcp: 'missing.json' }, {}, /the mcp file missing\.json does not exist/],
      [{}, { scratchDir: join(setup.dir(), 'at,tempt') }, /policy file whose path holds a comma/],
    ];
    for (const [options, overrides, message] of cases) {
      const { outcome, probe } = await session([{ say: 'never' }], options, overrides);
      expect(outcome.status).toBe('failed');
      expect(outcome.providerFailure).toMatchObject({ class: 'misconfigured' });
      expect(outcome.providerFailure?.evidence).toMatch(message);
      expect(outcome.end.called).toBe(false);
      expect(probe.pids).toEqual([]);
      // The next case's server closes this one.
      expect(setup.server().requests).toEqual([]);
    }
  });
});
