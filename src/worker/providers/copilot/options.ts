import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isStdioServer, loadMcpServers, type McpServer } from '../common/mcp-config.js';
import type { ProviderRequest } from '../provider-adapter.js';

/**
 * What a node asks of the Copilot CLI, as Copilot's own flags and files: the permission level
 * (its tool approval rules and path verification), `allowed_tools` / `denied_tools` (the tools the
 * model sees), `effort`, the node's `mcp` servers and its `systemPrompt` (an instructions file).
 * A value Copilot cannot take fails the node before Copilot starts, naming it.
 */

/**
 * The built-in tools Copilot 1.0.102 offers a model in offline mode (which ones depends on the
 * model: GPT ids get `apply_patch` and `rg` instead of `create`, `edit` and `grep`). Copilot
 * ignores a name it does not have, so a misspelt `denied_tools` entry would leave the tool in
 * place: a name outside this list, and outside `<server>-<tool>` of the node's MCP servers, fails
 * the node. The adapter tests check that every tool Copilot offers is in this list.
 */
export const COPILOT_TOOLS = [
  'bash', 'read_bash', 'write_bash', 'stop_bash', 'list_bash',
  'view', 'create', 'edit', 'apply_patch', 'grep', 'rg', 'glob',
  'task', 'read_agent', 'list_agents', 'write_agent',
  'skill', 'sql', 'session_store_sql', 'fetch_copilot_cli_documentation',
] as const;

/** `copilot --reasoning-effort` values. */
const EFFORTS: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * `--available-tools` with an empty list offers every tool, so a node that allows none names one
 * that cannot exist: Copilot then offers the model nothing.
 */
const NO_TOOL = 'cairn-offers-no-tools';

export type CopilotPlan =
  | {
      ok: true;
      args: string[];
      env: Record<string, string>;
      /** Files to remove once the attempt is over (they may hold secrets). */
      secretFiles: string[];
    }
  | { ok: false; error: string };

/**
 * Copilot's arguments and environment for a request's options; files it needs (the MCP servers,
 * the instructions) are written under `dir`.
 */
export async function planCopilot(request: ProviderRequest, dir: string, cliEnv: Readonly<Record<string, string | undefined>>): Promise<CopilotPlan> {
  const { options } = request;
  const args = permissionArgs(request);
  let mcp: Record<string, McpServer> = {};
  if (options.mcp !== undefined) {
    const loaded = await loadMcpServers(options.mcp, request.cwd, cliEnv);
    if (!loaded.ok) return loaded;
    if (loaded.missingVars.length > 0) return { ok: false, error: `the mcp file ${options.mcp} uses ${loaded.missingVars.map((v) => `$${v}`).join(', ')}, which the environment does not set` };
    mcp = loaded.servers;
  }
  const known = (name: string) =>
    (COPILOT_TOOLS as readonly string[]).includes(name) || Object.keys(mcp).some((server) => name.startsWith(`${server}-`) && /^[A-Za-z0-9_-]+$/.test(name));
  for (const [key, names] of [['allowed_tools', options.allowedTools], ['denied_tools', options.deniedTools]] as const) {
    const unknown = (names ?? []).filter((n) => !known(n));
    if (unknown.length > 0) {
      return {
        ok: false,
        error: `${key} names ${unknown.map((n) => `'${n}'`).join(', ')}, which Copilot does not have: its tools are ${COPILOT_TOOLS.join(', ')}, and <server>-<tool> for the node's MCP servers`,
      };
    }
  }
  // With both, Copilot ignores --excluded-tools: the denied names are taken out of the allowed ones here.
  const denied = options.deniedTools ?? [];
  if (options.allowedTools !== undefined) {
    const available = options.allowedTools.filter((t) => !denied.includes(t));
    args.push(`--available-tools=${available.length > 0 ? available.join(',') : NO_TOOL}`);
  } else if (denied.length > 0) {
    args.push(`--excluded-tools=${denied.join(',')}`);
  }
  if (request.effort !== undefined) {
    if (!EFFORTS.includes(request.effort)) return { ok: false, error: `effort '${request.effort}': Copilot takes ${EFFORTS.join(', ')}` };
    args.push('--reasoning-effort', request.effort);
  }
  await mkdir(dir, { recursive: true });
  const secretFiles: string[] = [];
  if (Object.keys(mcp).length > 0) {
    // Expanded values may hold secrets: readable by the server's user alone, removed after the attempt.
    const file = join(dir, 'copilot-mcp.json');
    await writeFile(file, JSON.stringify({ mcpServers: copilotMcpServers(mcp) }), { mode: 0o600 });
    secretFiles.push(file);
    args.push('--additional-mcp-config', `@${file}`);
  }
  const env: Record<string, string> = {};
  if (request.systemPrompt !== undefined) {
    const instructions = join(dir, 'copilot-instructions');
    if (instructions.includes(',')) return { ok: false, error: `systemPrompt: Copilot reads instruction folders as a comma-separated list, and ${instructions} holds a comma` };
    await mkdir(join(instructions, '.github', 'instructions'), { recursive: true });
    await writeFile(join(instructions, '.github', 'instructions', 'cairn-system-prompt.instructions.md'), request.systemPrompt);
    env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS = instructions;
  }
  return { ok: true, args, env, secretFiles };
}

/**
 * `read_only`: every tool that writes a file (`write`) or runs a command (`shell`) is denied, a
 * rule that wins over `--allow-all-tools`. `workspace`: every tool runs, and file access (a tool's
 * path, the paths a command names) is limited to the working directory and the extra folders, the
 * system temporary folder excluded. `full`: no rule, no path or URL check.
 */
function permissionArgs(request: ProviderRequest): string[] {
  const addDirs = request.options.extraDirs.flatMap((d) => ['--add-dir', d]);
  switch (request.options.permissions) {
    case 'read_only':
      return ['--allow-all-tools', '--deny-tool=write', '--deny-tool=shell', ...addDirs];
    case 'workspace':
      return ['--allow-all-tools', ...addDirs, '--disallow-temp-dir'];
    case 'full':
      return ['--allow-all-tools', '--allow-all-paths', '--allow-all-urls'];
  }
}

/** The servers in Copilot's `mcpServers` shape (`local` for a command), every tool of each offered. */
function copilotMcpServers(servers: Record<string, McpServer>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      isStdioServer(server)
        ? { type: 'local', command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}), ...(server.cwd ? { cwd: server.cwd } : {}), tools: ['*'] }
        : { type: server.type, url: server.url, ...(server.headers ? { headers: server.headers } : {}), tools: ['*'] },
    ]),
  );
}
