import type { Effort } from '../../../records/schemas/execution-record.js';
import { isStdioServer, type McpServer } from '../common/mcp-config.js';

/**
 * The `settings.json` of an attempt's GEMINI_CLI_HOME: the fixed part (API-key auth, no
 * auto-update, no usage statistics), the extra workspace directories of its permission level,
 * the node's MCP servers, and its effort as the model's thinking setting. Pure: home.ts
 * writes it.
 */

const BASE_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
};

export interface GeminiSettingsInput {
  /** Added to the CLI's workspace (`context.includeDirectories`), where its file tools may write. */
  includeDirectories?: readonly string[];
  mcpServers?: Readonly<Record<string, McpServer>>;
  effort?: Effort;
  /** The model asked for, to match its thinking setting when it is not one of the CLI's aliases. */
  model?: string;
}

/** The settings an attempt runs with; with no input, the fixed part alone. */
export function geminiSettings(input: GeminiSettingsInput = {}): Record<string, unknown> {
  const settings: Record<string, unknown> = structuredClone(BASE_SETTINGS);
  if (input.includeDirectories && input.includeDirectories.length > 0) settings.context = { includeDirectories: [...input.includeDirectories] };
  if (input.mcpServers && Object.keys(input.mcpServers).length > 0) {
    settings.mcpServers = Object.fromEntries(Object.entries(input.mcpServers).map(([name, server]) => [name, geminiMcpServer(server)]));
  }
  if (input.effort !== undefined) settings.modelConfigs = { customOverrides: thinkingOverrides(input.effort, input.model) };
  return settings;
}

/** One server in the CLI's shape: a command, or a `type` (`http`, `sse`) and a `url`. */
function geminiMcpServer(server: McpServer): Record<string, unknown> {
  if (isStdioServer(server)) {
    return { command: server.command, ...(server.args ? { args: server.args } : {}), ...(server.env ? { env: server.env } : {}), ...(server.cwd ? { cwd: server.cwd } : {}) };
  }
  return { type: server.type, url: server.url, ...(server.headers ? { headers: server.headers } : {}) };
}

/**
 * Gemini 2.5 models take a thinking budget in tokens (the CLI's own default is 8192); Gemini 3
 * models take a thinking level, of which the CLI's API client knows LOW and HIGH, and reject a
 * budget beside the level the CLI sets. Effort is clamped to `minimal`…`high` for this provider.
 */
const budgetByEffort: Readonly<Partial<Record<Effort, number>>> = { minimal: 512, low: 2048, medium: 8192, high: 24576 };
const levelByEffort: Readonly<Partial<Record<Effort, 'LOW' | 'HIGH'>>> = { minimal: 'LOW', low: 'LOW', medium: 'HIGH', high: 'HIGH' };

/** The thinking setting of one effort, for a model of the Gemini 3 family or not. */
export function thinkingConfigFor(effort: Effort, gemini3: boolean): Record<string, unknown> | undefined {
  if (gemini3) {
    const level = levelByEffort[effort];
    return level === undefined ? undefined : { thinkingLevel: level };
  }
  const budget = budgetByEffort[effort];
  return budget === undefined ? undefined : { thinkingBudget: budget };
}

/**
 * `modelConfigs.customOverrides`: matched on the CLI's two chat families (its aliases
 * `chat-base-2.5` and `chat-base-3`, which every model it knows extends) and on the model asked
 * for, for a name the CLI has no alias of.
 */
function thinkingOverrides(effort: Effort, model: string | undefined): Record<string, unknown>[] {
  const override = (match: string, gemini3: boolean) => {
    const thinkingConfig = thinkingConfigFor(effort, gemini3);
    return thinkingConfig ? [{ match: { model: match }, modelConfig: { generateContentConfig: { thinkingConfig } } }] : [];
  };
  return [
    ...override('chat-base-2.5', false),
    ...override('chat-base-3', true),
    // `auto…` names are routed to a model of either family: the family overrides cover them.
    ...(model !== undefined && !/^auto/i.test(model) ? override(model, /^gemini-3/i.test(model)) : []),
  ];
}
