import { isStdioServer, type McpServer } from '../common/mcp-config.js';
import type { CodexSandbox } from './sandbox.js';

/**
 * What an attempt's private CODEX_HOME holds: a config.toml that names one model provider (the
 * configured server, through the attempt's relay), the node's permission level as Codex's
 * sandbox and approval policy, its options (effort, web search, MCP servers), and turns off what
 * a one-shot run must not do (update checks, analytics, Codex's own retries); and the
 * `--output-schema` file. Pure text. Codex runs with `--strict-config`, so a key a Codex version
 * no longer knows fails the attempt instead of silently running with that version's default.
 */

export interface CodexConfigInput {
  baseUrl: string;
  /** The environment variable holding the key; absent: no key is sent (a local server). */
  envKey?: string;
  model?: string;
  developerInstructions?: string;
  /** One of Codex's `model_reasoning_effort` values (codex-options.ts checks it). */
  effort?: string;
  /** `web_search`: the node's `webSearchMode`; absent, Codex's own default. */
  webSearch?: 'disabled' | 'cached' | 'live';
  sandbox: CodexSandbox;
  /** The node's MCP servers, by name (names are `[A-Za-z0-9_-]+`, common/mcp-config.ts). */
  mcpServers?: Record<string, McpServer>;
}

/** The provider id the config defines. */
export const CODEX_PROVIDER_ID = 'cairn';

/** A TOML basic string: JSON's escapes are TOML's, and DEL must be escaped too. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007f');
}

function tomlArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

/** A table of strings, each key quoted (environment names and header names come from the node's file). */
function stringTable(header: string, record: Record<string, string>): string[] {
  return [header, ...Object.entries(record).map(([key, value]) => `${tomlString(key)} = ${tomlString(value)}`), ''];
}

export function codexConfigToml(input: CodexConfigInput): string {
  const { sandbox } = input;
  const lines = [
    `model_provider = ${tomlString(CODEX_PROVIDER_ID)}`,
    ...(input.model !== undefined ? [`model = ${tomlString(input.model)}`] : []),
    ...(input.effort !== undefined ? [`model_reasoning_effort = ${tomlString(input.effort)}`] : []),
    ...(input.developerInstructions !== undefined ? [`developer_instructions = ${tomlString(input.developerInstructions)}`] : []),
    // `codex exec` is unattended: what the sandbox does not allow is refused, never asked.
    'approval_policy = "never"',
    `sandbox_mode = ${tomlString(sandbox.mode)}`,
    ...(input.webSearch !== undefined ? [`web_search = ${tomlString(input.webSearch)}`] : []),
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    ...(sandbox.mode === 'workspace-write'
      ? [
          '[sandbox_workspace_write]',
          `writable_roots = ${tomlArray(sandbox.writableRoots)}`,
          // Commands write the working directory and these roots only: not /tmp (their $TMPDIR is
          // a private folder among the roots).
          'exclude_slash_tmp = true',
          'network_access = true',
          '',
        ]
      : []),
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    'name = "Cairn"',
    `base_url = ${tomlString(input.baseUrl)}`,
    ...(input.envKey !== undefined ? [`env_key = ${tomlString(input.envKey)}`] : []),
    'wire_api = "responses"',
    // One request per attempt: Cairn's retry policy retries, after classifying what the server said.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    // The relay speaks HTTP only: never the Responses WebSocket transport a Codex version may prefer.
    'supports_websockets = false',
    '',
    ...Object.entries(input.mcpServers ?? {}).flatMap(([name, server]) => mcpServerToml(name, server, sandbox.mcpApproval)),
  ];
  return lines.join('\n');
}

function mcpServerToml(name: string, server: McpServer, approval: CodexSandbox['mcpApproval']): string[] {
  const table = `mcp_servers.${name}`;
  if (isStdioServer(server)) {
    return [
      `[${table}]`,
      `command = ${tomlString(server.command)}`,
      ...(server.args !== undefined ? [`args = ${tomlArray(server.args)}`] : []),
      ...(server.cwd !== undefined ? [`cwd = ${tomlString(server.cwd)}`] : []),
      `default_tools_approval_mode = ${tomlString(approval)}`,
      '',
      ...(server.env !== undefined ? stringTable(`[${table}.env]`, server.env) : []),
    ];
  }
  return [
    `[${table}]`,
    `url = ${tomlString(server.url)}`,
    `default_tools_approval_mode = ${tomlString(approval)}`,
    '',
    ...(server.headers !== undefined ? stringTable(`[${table}.http_headers]`, server.headers) : []),
  ];
}

/**
 * The schema as Codex needs it for `--output-schema`: the Responses API's strict mode wants
 * `additionalProperties: false` on every object, so it is added where the node left it out.
 */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = strictSchema(value);
  if ((out.type === 'object' || out.properties !== undefined) && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
