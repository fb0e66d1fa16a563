import { describe, expect, it } from 'vitest';
import { agentOptionsSchema } from '../../../../src/shared/providers/agent-options.js';
import { buildOpencodeConfig, OPENCODE_KEY_ENV } from '../../../../src/worker/providers/opencode/config.js';
import type { ProviderRequest } from '../../../../src/worker/providers/provider-adapter.js';

/** The attempt's opencode.json as text: what OpenCode reads once it has expanded its `{env:...}` references. */

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    provider: 'opencode',
    prompt: 'p',
    model: 'm',
    options: agentOptionsSchema.parse({ permissions: 'workspace' }),
    cwd: '/w',
    connection: { apiKey: 'sk-config-key' },
    sessionKey: 's',
    scratchDir: '/s',
    ...overrides,
  };
}

/** The text as OpenCode reads it: `{env:NAME}` replaced from `env`, then parsed. */
function asOpencodeReads(text: string, env: Record<string, string>): any {
  return JSON.parse(text.replace(/\{env:([^}]+)\}/g, (_m, name: string) => env[name] ?? ''));
}

describe("the attempt's opencode.json", () => {
  it('keeps the key and MCP secrets out of the file, behind references OpenCode expands', () => {
    const { text, env } = buildOpencodeConfig({
      request: request(),
      model: 'm',
      relayUrl: 'http://127.0.0.1:1/v1',
      instructions: [],
      mcpServers: {
        local: { command: 'node', args: ['s.js'], env: { TOKEN: 'tok-1' }, cwd: 'tools' },
        web: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer tok-2' } },
      },
    });
    for (const secret of ['sk-config-key', 'tok-1', 'tok-2']) expect(text).not.toContain(secret);
    expect(env[OPENCODE_KEY_ENV]).toBe('sk-config-key');
    const config = asOpencodeReads(text, env);
    expect(config.provider.cairn.options).toEqual({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'sk-config-key' });
    expect(config.mcp.local).toEqual({ type: 'local', command: ['node', 's.js'], cwd: 'tools', environment: { TOKEN: 'tok-1' }, enabled: true });
    expect(config.mcp.web).toEqual({ type: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer tok-2' }, oauth: false, enabled: true });
    expect(config.snapshot).toBe(false);
  });

  it('escapes every {env:} and {file:} that came from outside, so OpenCode reads it as text', () => {
    const hostile = 'x {env:CAIRN_OPENCODE_API_KEY} {file:/etc/passwd} {env:HOME}';
    const options = agentOptionsSchema.parse({ permissions: 'workspace', extraDirs: ['/art/{env:HOME}'], agents: { helper: { description: hostile, prompt: hostile, model: '{file:/etc/hostname}' } } });
    const { text, env } = buildOpencodeConfig({ request: request({ options }), model: '{env:HOME}', relayUrl: 'http://r', instructions: ['/s/{file:x}.md'], mcpServers: {} });
    const config = asOpencodeReads(text, env);
    expect(config.agent.helper).toMatchObject({ mode: 'subagent', description: hostile, prompt: hostile, model: 'cairn/{file:/etc/hostname}' });
    expect(config.model).toBe('cairn/{env:HOME}');
    expect(config.instructions).toEqual(['/s/{file:x}.md']);
    expect(config.permission.external_directory['/art/{env:HOME}/*']).toBe('allow');
    // The only reference left in the text is the adapter's own.
    expect(text.match(/\{env:[^}]*\}/g)).toEqual([`{env:${OPENCODE_KEY_ENV}}`]);
    expect(text).not.toMatch(/\{file:/);
  });

  it("puts effort on each model the node uses, and the sub-agents' models on the same server", () => {
    const options = agentOptionsSchema.parse({ permissions: 'read_only', agents: { a: { description: 'd', prompt: 'p', model: 'small-one', maxTurns: 3, tools: ['read'] } } });
    const { text } = buildOpencodeConfig({ request: request({ options, effort: 'low', connection: {} }), model: 'm', relayUrl: 'http://r', instructions: [], mcpServers: {} });
    const config = JSON.parse(text);
    expect(config.provider.cairn.options).toEqual({ baseURL: 'http://r' });
    expect(config.provider.cairn.models).toEqual({ m: { name: 'm', options: { reasoningEffort: 'low' } }, 'small-one': { name: 'small-one', options: { reasoningEffort: 'low' } } });
    expect(config.agent.a).toMatchObject({ model: 'cairn/small-one', steps: 3, permission: { '*': 'deny', read: 'allow' } });
  });
});
