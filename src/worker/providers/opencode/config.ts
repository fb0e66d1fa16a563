import { randomUUID } from 'node:crypto';
import type { AgentDefinition } from '../../../shared/providers/agent-options.js';
import { isStdioServer, type McpServer } from '../common/mcp-config.js';
import { agentPermissionRules, permissionRules, type PermissionRules } from './permission.js';
import type { ProviderRequest } from '../provider-adapter.js';

/**
 * The global `opencode.json` of an attempt, as text, and the environment its `{env:...}`
 * references name. OpenCode replaces `{env:NAME}` and `{file:path}` anywhere in its config's text
 * before reading it, so a value from outside (an agent's prompt, a path, a model name) could
 * otherwise pull the key or a file into what the model sees: every such sequence in the written
 * text is escaped (`\u007b`, which JSON reads back as the literal `{`), and only the references
 * the adapter itself makes survive. Secrets (the key, an MCP server's environment and headers)
 * travel that way, in the CLI's environment, never in the file.
 */

/** The environment variable the provider's `apiKey: {env:...}` names. */
export const OPENCODE_KEY_ENV = 'CAIRN_OPENCODE_API_KEY';

/** OpenCode's own agents: a node's agent of one of these names would change them. */
export const OPENCODE_AGENT_NAMES = ['build', 'plan', 'general', 'explore', 'title', 'summary', 'compaction'] as const;

export interface OpencodeConfigInput {
  request: ProviderRequest;
  model: string;
  relayUrl: string;
  /** Files OpenCode adds to its instructions (the node's system prompt). */
  instructions: string[];
  mcpServers: Record<string, McpServer>;
}

export interface OpencodeConfig {
  text: string;
  /** Values for the config's `{env:...}` references. */
  env: Record<string, string>;
}

/** The config text for one attempt. */
export function buildOpencodeConfig(input: OpencodeConfigInput): OpencodeConfig {
  const { request, model } = input;
  const refs = new EnvRefs();
  const rules = permissionRules(request.options);
  const agents = request.options.agents ?? {};
  const modelOptions = request.effort !== undefined ? { options: { reasoningEffort: request.effort } } : {};
  const models: Record<string, unknown> = { [model]: { name: model, ...modelOptions } };
  for (const agent of Object.values(agents)) {
    if (agent.model !== undefined) models[agent.model] ??= { name: agent.model, ...modelOptions };
  }
  const hasKey = request.connection.apiKey !== undefined;
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    // OpenCode would otherwise copy the worktree into a git repository of its own at every step,
    // for its undo; a run's changes are the worktree's, and its history is Cairn's.
    snapshot: false,
    model: `cairn/${model}`,
    permission: rules,
    ...(input.instructions.length > 0 ? { instructions: input.instructions } : {}),
    ...(Object.keys(input.mcpServers).length > 0 ? { mcp: mcpConfig(input.mcpServers, refs) } : {}),
    ...(Object.keys(agents).length > 0 ? { agent: agentConfig(agents, rules) } : {}),
    provider: {
      cairn: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Cairn',
        options: { baseURL: input.relayUrl, ...(hasKey ? { apiKey: refs.add(OPENCODE_KEY_ENV, request.connection.apiKey!) } : {}) },
        models,
      },
    },
  };
  return { text: refs.render(config), env: refs.env };
}

/** The first of the node's agent names OpenCode already uses, if any. */
export function clashingAgentName(agents: Readonly<Record<string, unknown>> | undefined): string | undefined {
  return Object.keys(agents ?? {}).find((name) => (OPENCODE_AGENT_NAMES as readonly string[]).includes(name));
}

function agentConfig(agents: Record<string, AgentDefinition>, rules: PermissionRules): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, agent] of Object.entries(agents)) {
    const permission = agentPermissionRules(rules, agent.tools, agent.disallowedTools);
    out[name] = {
      mode: 'subagent',
      description: agent.description,
      prompt: agent.prompt,
      ...(agent.model !== undefined ? { model: `cairn/${agent.model}` } : {}),
      ...(agent.maxTurns !== undefined ? { steps: agent.maxTurns } : {}),
      ...(permission !== undefined ? { permission } : {}),
    };
  }
  return out;
}

function mcpConfig(servers: Record<string, McpServer>, refs: EnvRefs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (isStdioServer(server)) {
      const environment = server.env && refs.addAll(`MCP_${name}_ENV`, server.env);
      out[name] = {
        type: 'local',
        command: [server.command, ...(server.args ?? [])],
        ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
        ...(environment ? { environment } : {}),
        enabled: true,
      };
    } else {
      const headers = server.headers && refs.addAll(`MCP_${name}_HEADER`, server.headers);
      // OAuth discovery would wait for a browser login no one gives.
      out[name] = { type: 'remote', url: server.url, ...(headers ? { headers } : {}), oauth: false, enabled: true };
    }
  }
  return out;
}

/**
 * The `{env:...}` references the adapter makes: each value is written as a placeholder no
 * outside text can know (a fresh UUID), turned into the reference after the escaping.
 */
class EnvRefs {
  readonly env: Record<string, string> = {};
  private readonly nonce = randomUUID();
  private count = 0;

  /** The placeholder for `value`, carried in the variable `name`. */
  add(name: string, value: string): string {
    this.env[name] = value;
    return `${this.nonce}:${name}:${this.nonce}`;
  }

  /** Placeholders for each value of `record`, in variables named from `prefix`. */
  addAll(prefix: string, record: Record<string, string>): Record<string, string> {
    const base = `CAIRN_OPENCODE_${prefix.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, this.add(`${base}_${++this.count}`, v)]));
  }

  render(config: unknown): string {
    const escaped = JSON.stringify(config, null, 2).replace(/\{(?=(?:env|file):)/g, '\\u007b');
    return escaped.replace(new RegExp(`"${this.nonce}:([A-Za-z0-9_]+):${this.nonce}"`, 'g'), '"{env:$1}"');
  }
}
