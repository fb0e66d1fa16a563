import { isAbsolute, join, resolve } from 'node:path';
import { codexConfigToml } from './config.js';
import { codexSandbox, type CodexSandbox } from './sandbox.js';
import { isStdioServer, loadMcpServers, type McpServer } from '../common/mcp-config.js';
import type { ProviderRequest } from '../provider-adapter.js';

/**
 * Everything an attempt asks of Codex beyond the prompt, turned into its private config.toml:
 * the permission level (sandbox.ts), `effort`, `systemPrompt`, `webSearchMode` and the
 * node's MCP servers. A value Codex cannot take fails the attempt before Codex starts, naming it.
 */

/** The `model_reasoning_effort` values Codex takes (0.169 and 0.171): another is silently read as `medium`. */
export const codexEfforts: readonly string[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

export interface CodexSetup {
  configToml: string;
  sandbox: CodexSandbox;
  /** The commands' $TMPDIR: a private folder of the attempt (writable at `workspace`, unlike /tmp). */
  tmpDir: string;
}

export async function codexSetup(
  request: ProviderRequest,
  relayUrl: string,
  env: Readonly<Record<string, string | undefined>>,
  envKey: string | undefined,
): Promise<{ ok: true; setup: CodexSetup } | { ok: false; error: string }> {
  const { options } = request;
  if (request.effort !== undefined && !codexEfforts.includes(request.effort)) {
    return { ok: false, error: `Codex takes effort ${codexEfforts.join(', ')}, not '${request.effort}': set one of those on the node` };
  }
  let mcpServers: Record<string, McpServer> | undefined;
  if (options.mcp !== undefined) {
    const loaded = await loadMcpServers(options.mcp, request.cwd, env);
    if (!loaded.ok) return { ok: false, error: loaded.error };
    const sse = Object.entries(loaded.servers).find(([, s]) => !isStdioServer(s) && s.type === 'sse');
    if (sse !== undefined) {
      return { ok: false, error: `the mcp file ${options.mcp}: server '${sse[0]}' is an SSE server; Codex takes stdio servers and streamable HTTP ones ('type: http')` };
    }
    mcpServers = Object.fromEntries(Object.entries(loaded.servers).map(([name, s]) => [name, withAbsoluteCwd(s, request.cwd)]));
  }
  const tmpDir = join(request.scratchDir, 'tmp');
  const sandbox = await codexSandbox(options.permissions, request.cwd, options.extraDirs, tmpDir);
  const configToml = codexConfigToml({
    baseUrl: relayUrl,
    ...(envKey !== undefined ? { envKey } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    ...(request.effort !== undefined ? { effort: request.effort } : {}),
    ...(request.systemPrompt !== undefined ? { developerInstructions: request.systemPrompt } : {}),
    ...(options.webSearchMode !== undefined ? { webSearch: options.webSearchMode } : {}),
    sandbox,
    ...(mcpServers !== undefined ? { mcpServers } : {}),
  });
  return { ok: true, setup: { configToml, sandbox, tmpDir } };
}

/** A stdio server's `cwd` is relative to the run's working directory, as its file is. */
function withAbsoluteCwd(server: McpServer, cwd: string): McpServer {
  if (!isStdioServer(server) || server.cwd === undefined || isAbsolute(server.cwd)) return server;
  return { ...server, cwd: resolve(cwd, server.cwd) };
}
