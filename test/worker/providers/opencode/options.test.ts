import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../../../src/worker/providers/opencode/adapter.js';
import { agentTask, runAttempt, scratch } from '../agent-harness.js';
import { offeredTools, opencodeBuilds, openOpencodeSession, toolResultsOf, type OpencodeSession } from './session.js';

/**
 * The node options the registry declares for OpenCode (allowed_tools, denied_tools, mcp, agents,
 * effort, systemPrompt), each proved on what the real CLI sends the server and does.
 */

const ECHO_SERVER = resolve('test/fixtures/mcp/echo-server.mjs');
const SECRET = 'mcp-secret-7781';

let dir: ReturnType<typeof scratch>;
let session: OpencodeSession | undefined;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await session?.server.close();
  session = undefined;
  dir.cleanup();
});

/** Every file under `root` whose bytes hold `text`. */
function filesHolding(root: string, text: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).filter((f) => {
    const path = join(root, f);
    return statSync(path).isFile() && readFileSync(path).toString('latin1').includes(text);
  });
}

describe.each(opencodeBuilds)('OpenCode $version node options', ({ binaryPath }) => {
  it('allowed_tools and denied_tools make the offered set, mcp servers are offered and called, systemPrompt joins the instructions', async () => {
    const log = join(dir.dir, 'echo.log');
    session = await openOpencodeSession(dir.dir, binaryPath, [
      {
        steps: [
          { call: 'echo_echo', args: { text: 'ping' } },
          { tool: 'write', path: 'notes.txt', content: 'x\n' },
          { tool: 'run', command: 'touch made-by-bash' },
          { say: 'Echoed.' },
        ],
      },
    ]);
    // The server's environment carries a secret the mcp file names; it reaches the MCP server only.
    writeFileSync(
      join(session.repo, 'mcp.json'),
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER], env: { MCP_ECHO_LOG: log, TOKEN: '$ECHO_TOKEN' } } } }),
    );
    const hostile = 'Answer tersely. {env:CAIRN_OPENCODE_API_KEY} {file:/etc/hostname}';
    const { outcome, chunks } = await session.run(
      { permissions: 'workspace', mcp: 'mcp.json', allowedTools: ['Read', 'mcp__echo__echo', 'write'], deniedTools: ['write'] },
      { systemPrompt: hostile, env: { ECHO_TOKEN: SECRET } },
    );
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    const body = session.server.requests[0]!.body;
    expect(offeredTools(body)).toEqual(['echo_echo', 'read']);
    const system = JSON.stringify(body.messages.filter((m: { role: string }) => m.role === 'system'));
    expect(system).toContain('Answer tersely. {env:CAIRN_OPENCODE_API_KEY} {file:/etc/hostname}');
    expect(system).not.toContain('sk-opencode-session');
    // The MCP tool ran (the server logged the call); the withheld tools were refused, not run.
    expect(readFileSync(log, 'utf8')).toContain('"text":"ping"');
    expect(toolResultsOf(chunks).map((r) => [r.output.slice(0, 10), r.refused === true])).toEqual([
      ['echo: ping', false],
      [expect.any(String), true],
      [expect.any(String), true],
    ]);
    expect(existsSync(join(session.repo, 'notes.txt'))).toBe(false);
    expect(existsSync(join(session.repo, 'made-by-bash'))).toBe(false);
    expect(filesHolding(join(dir.dir, 'attempt'), SECRET)).toEqual([]);
  });

  it('agents become sub-agents the task tool offers and runs, each with its model, prompt and tools; their text is never expanded', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [
      { match: /You are the scribe/, steps: [{ tool: 'write', path: 'from-scribe.txt', content: 'scribed\n' }, { say: 'Scribe wrote it.' }] },
      { steps: [{ call: 'task', args: { description: 'Write the file', prompt: 'Write from-scribe.txt', subagent_type: 'scribe' } }, { say: 'Delegated.' }] },
    ]);
    const { outcome, chunks } = await session.run({
      permissions: 'workspace',
      agents: {
        scribe: { description: 'Writes files {env:CAIRN_OPENCODE_API_KEY}', prompt: 'You are the scribe.', model: 'oc-scribe', tools: ['Write', 'bash'], disallowedTools: ['bash'], maxTurns: 4 },
      },
    });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    const task = session.server.requests[0]!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'task');
    expect(task.function.description).toContain('scribe: Writes files {env:CAIRN_OPENCODE_API_KEY}');
    const sub = session.server.requests.find((r) => JSON.stringify(r.body.messages).includes('You are the scribe.'))!;
    expect(sub.body.model).toBe('oc-scribe');
    expect(offeredTools(sub.body)).toEqual(['edit', 'write']);
    expect(readFileSync(join(session.repo, 'from-scribe.txt'), 'utf8')).toBe('scribed\n');
    expect(toolResultsOf(chunks).map((r) => r.refused === true)).toEqual([false]);
    expect(outcome.output).toBe('Delegated.');
  });

  it('allowed_tools: [] offers no tool; effort reaches the request as reasoning_effort', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [{ steps: [{ say: 'No tools.' }] }]);
    const { outcome } = await session.run({ permissions: 'full', allowedTools: [] }, { effort: 'high' });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    const body = session.server.requests[0]!.body;
    expect(offeredTools(body)).toEqual([]);
    expect(body.reasoning_effort).toBe('high');
  });
});

describe('OpenCode node options refused before the CLI starts', () => {
  it("fails at once, naming the problem, for a missing mcp file and an agent named like one of OpenCode's", async () => {
    const base = { provider: 'opencode' as const, model: 'oc-test', connection: { baseUrl: 'http://127.0.0.1:9/v1' } };
    let { outcome } = await runAttempt(opencodeAdapter, agentTask(dir.dir, { ...base, options: { permissions: 'workspace', mcp: 'no-such.json' } }));
    expect(outcome).toMatchObject({ status: 'failed', failureKind: 'config' });
    expect(outcome.error).toMatch(/the mcp file no-such\.json does not exist/);
    ({ outcome } = await runAttempt(opencodeAdapter, agentTask(dir.dir, { ...base, options: { permissions: 'workspace', agents: { build: { description: 'd', prompt: 'p' } } } })));
    expect(outcome).toMatchObject({ status: 'failed', failureKind: 'config' });
    expect(outcome.error).toMatch(/agent 'build' is the name of one of OpenCode's own agents/);
  });
});
