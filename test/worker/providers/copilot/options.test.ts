import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COPILOT_TOOLS } from '../../../../src/worker/providers/copilot/options.js';
import { copilotAdapter } from '../../../../src/worker/providers/copilot/adapter.js';
import { chatCompletionsAgent, copilotVocabulary, offeredToolNames, type ChatAgentScript } from '../../../helpers/chat-completions-agent.js';
import { startOpenAiServer } from '../../../helpers/openai-server.js';
import { agentTask, runAttempt } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';
import { scriptedWorkspace, toolResults } from '../chat-cli-permission-cases.js';

/**
 * The node options Copilot's registry entry declares, each proven on what the real Copilot CLI
 * sends or does: `allowed_tools` / `denied_tools` (the request's tool list), `effort` (its
 * `reasoning_effort`), `systemPrompt` (in its system message), `mcp` (the echo server's tool is
 * offered and called). What Copilot cannot take fails the node before Copilot starts.
 */

const echoServer = new URL('../../../fixtures/mcp/echo-server.mjs', import.meta.url).pathname;

const setup = cliTestSetup({ start: startOpenAiServer });

async function copilotRun(scripts: ChatAgentScript[], overrides: Parameters<typeof agentTask>[1], env: Record<string, string> = {}) {
  const agent = chatCompletionsAgent(scripts, { vocabularies: [copilotVocabulary] });
  const server = await setup.start(agent.reply);
  const task = agentTask(setup.dir(), { provider: 'copilot', model: 'cp-test', connection: { baseUrl: server.url, apiKey: 'k', env: { HOME: setup.dir(), ...env } }, ...overrides });
  return { ...(await runAttempt(copilotAdapter, task)), agent, task };
}

describe('copilot node options (real Copilot CLI)', () => {
  it('allowed_tools picks tools and denied_tools removes them; effort and systemPrompt reach the request', async () => {
    const { outcome } = await copilotRun([{ steps: [{ say: 'ok' }] }], {
      effort: 'high',
      systemPrompt: 'Answer as a release manager.\n---\nKeep the changelog.',
      options: { permissions: 'workspace', extraDirs: [], allowedTools: ['view', 'bash', 'grep'], deniedTools: ['bash'] },
    });
    expect(outcome.status).toBe('completed');
    const body = setup.server().requests[0]!.body;
    expect(offeredToolNames(body)).toEqual(['view', 'grep']);
    expect(body.reasoning_effort).toBe('high');
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content).toContain('Answer as a release manager.\n---\nKeep the changelog.');
  });

  it('allowed_tools [] offers no tool at all', async () => {
    const { outcome } = await copilotRun([{ steps: [{ say: 'ok' }] }], { options: { permissions: 'workspace', extraDirs: [], allowedTools: [] } });
    expect(outcome.status).toBe('completed');
    expect(setup.server().requests[0]!.body.tools ?? []).toEqual([]);
  });

  it('mcp: the echo server is offered and called at workspace, denied_tools alone removes a tool; a command or a read naming a path outside the worktree is refused', async () => {
    const { repo, artifacts, outside } = scriptedWorkspace(setup.dir());
    writeFileSync(join(outside, 'secret.txt'), 'do not read\n');
    const log = join(setup.dir(), 'echo.log');
    writeFileSync(join(repo, 'mcp.json'), JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [echoServer], env: { MCP_ECHO_LOG: '$ECHO_LOG' } } } }));
    const { outcome, chunks, agent, task } = await copilotRun(
      [
        {
          steps: [
            { call: 'echo-echo', args: { text: 'ping' } },
            { tool: 'run', command: `echo escaped > ${join(outside, 'cmd.md')}` },
            { tool: 'read', path: join(outside, 'secret.txt') },
            { say: 'done' },
          ],
        },
      ],
      { cwd: repo, options: { permissions: 'workspace', extraDirs: [artifacts], mcp: 'mcp.json', deniedTools: ['glob'] } },
      { ECHO_LOG: log },
    );
    expect(outcome.status).toBe('completed');
    const offered = offeredToolNames(setup.server().requests[0]!.body);
    expect(offered).toContain('echo-echo');
    expect(offered).toContain('grep');
    expect(offered).not.toContain('glob');
    // Every tool Copilot offers is one the adapter knows (copilot-options.ts checks node tool lists against them).
    expect(offered.filter((t) => t !== 'echo-echo' && !(COPILOT_TOOLS as readonly string[]).includes(t))).toEqual([]);
    expect(agent.toolResults[0]!.content).toContain('echo: ping');
    expect(readFileSync(log, 'utf8')).toContain('ping');
    expect(toolResults(chunks).map((r) => r.refused === true)).toEqual([false, true, true]);
    expect(existsSync(join(outside, 'cmd.md'))).toBe(false);
    expect(agent.toolResults[2]!.content).not.toContain('do not read');
    // The MCP config (expanded environment values) does not outlive the attempt.
    expect(readdirSync(task.scratchDir)).not.toContain('copilot-mcp.json');
  });

  it.each([
    [{ allowedTools: ['Read'] }, undefined, "allowed_tools names 'Read', which Copilot does not have"],
    [{ deniedTools: ['Bash'] }, undefined, "denied_tools names 'Bash'"],
    [{ deniedTools: ['bash,view'] }, undefined, "'bash,view'"],
    [{ allowedTools: ['echo-echo'] }, undefined, "'echo-echo'"],
    [{}, 'ultra' as const, "effort 'ultra'"],
    [{ mcp: 'missing.json' }, undefined, 'the mcp file missing.json does not exist'],
  ])('fails the node before Copilot starts when it cannot take %j (effort %s)', async (options, effort, message) => {
    const { outcome } = await copilotRun([{ steps: [{ say: 'ok' }] }], { ...(effort ? { effort } : {}), options: { permissions: 'workspace', extraDirs: [], ...options } });
    expect(outcome.status).toBe('failed');
    expect(outcome.failureKind).toBe('config');
    expect(outcome.error).toContain(message);
    expect(setup.server().requests).toHaveLength(0);
  });
});
