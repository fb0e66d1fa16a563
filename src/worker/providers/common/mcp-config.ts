import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

/**
 * A node's `mcp:` file: a JSON object of MCP servers (the `mcpServers` object of Claude Code's
 * `.mcp.json`, or that object alone), read when the attempt starts, relative to the run's working
 * directory. `$NAME` and `${NAME}` in a server's `env` and `headers` values are replaced from the
 * environment the CLI gets, as the upstream does. Each adapter writes the servers into its CLI's
 * own configuration. A file that is missing or malformed fails the attempt before any call, naming
 * the file and what is wrong.
 */

const stdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
const remoteServerSchema = z.looseObject({
  type: z.enum(['http', 'sse']),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).optional(),
});
export const mcpServerSchema = z.union([stdioServerSchema, remoteServerSchema]);
export type McpServer = z.infer<typeof mcpServerSchema>;
export type StdioMcpServer = z.infer<typeof stdioServerSchema>;
export type RemoteMcpServer = z.infer<typeof remoteServerSchema>;

/** The servers by name, every `$VAR` expanded; or why the file cannot be used. */
export type McpServers = { ok: true; servers: Record<string, McpServer>; missingVars: string[] } | { ok: false; error: string };

/** MCP server names become parts of tool names (`mcp__<server>__<tool>`). */
const serverNamePattern = /^[A-Za-z0-9_-]+$/;

export async function loadMcpServers(file: string, cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<McpServers> {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: code === 'ENOENT' ? `the mcp file ${file} does not exist (looked for ${path})` : `the mcp file ${file} cannot be read: ${(err as Error).message}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `the mcp file ${file} is not JSON: ${(err as Error).message}` };
  }
  const object = isObject(parsed) && isObject(parsed.mcpServers) ? parsed.mcpServers : parsed;
  if (!isObject(object)) return { ok: false, error: `the mcp file ${file} must hold a JSON object of servers ({ "name": { "command": ... } })` };
  const servers: Record<string, McpServer> = {};
  const missing = new Set<string>();
  for (const [name, value] of Object.entries(object)) {
    if (!serverNamePattern.test(name)) return { ok: false, error: `the mcp file ${file}: server name '${name}' may hold only letters, digits, '_' and '-'` };
    const server = mcpServerSchema.safeParse(value);
    if (!server.success) {
      return { ok: false, error: `the mcp file ${file}: server '${name}' needs a 'command' (stdio) or a 'type' of http or sse with a 'url'` };
    }
    servers[name] = expand(server.data, env, missing);
  }
  return { ok: true, servers, missingVars: [...missing] };
}

function expand(server: McpServer, env: Readonly<Record<string, string | undefined>>, missing: Set<string>): McpServer {
  const values = (record: Record<string, string> | undefined) =>
    record === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record).map(([k, v]) => [
            k,
            v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced: string | undefined, bare: string | undefined) => {
              const name = (braced ?? bare)!;
              const value = env[name];
              if (value === undefined) missing.add(name);
              return value ?? '';
            }),
          ]),
        );
  if (!isStdioServer(server)) {
    const headers = values(server.headers);
    return { ...server, ...(headers ? { headers } : {}) };
  }
  const stdio = server;
  const env2 = values(stdio.env);
  return { ...stdio, ...(env2 ? { env: env2 } : {}) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether a server is reached over stdio (a command) rather than a URL. */
export function isStdioServer(server: McpServer): server is StdioMcpServer {
  return 'command' in server;
}
