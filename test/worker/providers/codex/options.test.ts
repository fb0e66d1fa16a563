import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../../src/worker/providers/codex/adapter.js';
import { startMcpHttpServer, type McpHttpServer } from '../../../helpers/mcp-http-server.js';
import { startResponsesServer, toolOutputs, type ResponsesReply, type ResponsesRequest, type ResponsesServer } from '../../../helpers/responses-server.js';
import { runAttempt, scratch } from '../agent-harness.js';
import { codexClis, codexTaskFor, makeRepo, toolCalls, toolResults } from './cli.js';

/**
 * The node options the registry says Codex honours, each seen where it must land: in the request
 * Codex sends (`effort` as `reasoning.effort`, `systemPrompt` as a developer message,
 * `webSearchMode` as the `web_search` tool or its absence, the `mcp` servers' tools) and in what
 * Codex does (the MCP tool really called, or refused at `read_only`). Both CLIs.
 */

const echoServer = resolve('test/fixtures/mcp/echo-server.mjs');

let server: ResponsesServer | undefined;
let mcpHttp: McpHttpServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  await mcpHttp?.close();
  server = undefined;
  mcpHttp = undefined;
  dir.cleanup();
});

/** The model calls the stdio echo tool (in its server's namespace, as Codex offers it), then answers with what it got. */
function callsEcho(req: ResponsesRequest): ResponsesReply {
  const outputs = toolOutputs(req);
  if (outputs.length > 0) return { kind: 'stream', deltas: [`tool said: ${outputs[0]!.output}`] };
  return { kind: 'calls', calls: [{ type: 'function', name: 'echo', namespace: 'mcp__echo', arguments: { text: 'ping' } }] };
}

/** The model calls both servers' tools at once, then answers with what they said. */
function callsBoth(req: ResponsesRequest): ResponsesReply {
  const outputs = toolOutputs(req);
  if (outputs.length > 0) return { kind: 'stream', deltas: [`tools said: ${outputs.map((o) => o.output).join(' | ')}`] };
  return {
    kind: 'calls',
    calls: [
      { type: 'function', name: 'echo', namespace: 'mcp__echo', arguments: { text: 'ping' } },
      { type: 'function', name: 'shout', namespace: 'mcp__web', arguments: { text: 'quiet' } },
    ],
  };
}

/**
 * A node's mcp file: the stdio echo server, whose env holds a value that would break out of a
 * TOML string, and (given its URL) a streamable HTTP server with a header from the environment.
 */
function writeMcpFile(cwd: string, log: string, httpUrl?: string): string {
  const hostile = 'x"\n[mcp_servers.injected]\ncommand = "touch"\nargs = ["pwned"]\n';
  const servers: Record<string, unknown> = { echo: { command: process.execPath, args: [echoServer], env: { MCP_ECHO_LOG: log, 'ODD"NAME': hostile } } };
  if (httpUrl !== undefined) servers.web = { type: 'http', url: httpUrl, headers: { 'X-Token': 'Bearer ${WEB_TOKEN}' } };
  writeFileSync(join(cwd, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  return 'mcp.json';
}

const tools = (req: ResponsesRequest): any[] => req.body.tools ?? [];

describe.each(codexClis)('codex options, $version', ({ bin }) => {
  it('effort, systemPrompt, webSearchMode live and MCP servers (stdio and HTTP) reach Codex; their tools are offered and called', async () => {
    const cwd = makeRepo(join(dir.dir, 'repo'));
    const log = join(dir.dir, 'echo.log');
    mcpHttp = await startMcpHttpServer();
    server = await startResponsesServer(callsBoth);
    const task = codexTaskFor(bin, server.url, dir.dir, {
      cwd,
      effort: 'high',
      systemPrompt: 'Answer as a release manager.',
      options: { permissions: 'workspace', webSearchMode: 'live', mcp: writeMcpFile(cwd, log, mcpHttp.url) },
    });
    task.connection.env = { ...task.connection.env, WEB_TOKEN: 'web-secret' };
    const { outcome, chunks } = await runAttempt(codexAdapter, task);
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(outcome.output).toMatch(/^tools said: [\s\S]*echo: ping[\s\S]*QUIET$/);
    const first = server.requests[0]!;
    expect(first.body.reasoning.effort).toBe('high');
    expect(JSON.stringify(first.body.input.filter((m: any) => m.role === 'developer'))).toContain('Answer as a release manager.');
    expect(tools(first).filter((t) => t.type === 'web_search')).toEqual([expect.objectContaining({ external_web_access: true })]);
    const namespaces = tools(first).filter((t) => t.type === 'namespace' && t.name.startsWith('mcp__')).map((t) => [t.name, t.tools.map((x: any) => x.name)]);
    expect(namespaces).toEqual([
      ['mcp__echo', ['echo']],
      ['mcp__web', ['shout']],
    ]);
    expect(readFileSync(log, 'utf8')).toContain('"text":"ping"');
    expect(mcpHttp.calls).toEqual([{ text: 'quiet' }]);
    expect(mcpHttp.headers.every((h) => h['x-token'] === 'Bearer web-secret')).toBe(true);
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(toolCalls(chunks).map((c) => [c.name, c.input])).toEqual([
      ['mcp__echo__echo', { text: 'ping' }],
      ['mcp__web__shout', { text: 'quiet' }],
    ]);
    expect(toolResults(chunks).map((r) => [r.output.includes('echo: ping') || r.output.includes('QUIET'), r.refused, r.isError])).toEqual([
      [true, undefined, undefined],
      [true, undefined, undefined],
    ]);
  });

  it('webSearchMode disabled offers no web search; at read_only an MCP tool that may write is refused', async () => {
    const cwd = makeRepo(join(dir.dir, 'repo'));
    const log = join(dir.dir, 'echo.log');
    server = await startResponsesServer(callsEcho);
    const task = codexTaskFor(bin, server.url, dir.dir, { cwd, options: { permissions: 'read_only', webSearchMode: 'disabled', mcp: writeMcpFile(cwd, log) } });
    const { outcome, chunks } = await runAttempt(codexAdapter, task);
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(tools(server.requests[0]!).some((t) => t.type === 'web_search')).toBe(false);
    expect(existsSync(log)).toBe(false);
    expect(toolResults(chunks)).toEqual([expect.objectContaining({ refused: true, isError: true })]);
  });
});

describe('codex options Codex cannot take', () => {
  it('fails before starting Codex on an effort Codex does not know, and on an SSE MCP server, naming them', async () => {
    server = await startResponsesServer(() => ({ kind: 'stream', deltas: ['unreachable'] }));
    const cwd = makeRepo(join(dir.dir, 'repo'));
    const [{ bin }] = codexClis;
    let { outcome } = await runAttempt(codexAdapter, codexTaskFor(bin, server.url, dir.dir, { cwd, effort: 'ultra' }));
    expect(outcome.providerFailure).toMatchObject({ class: 'misconfigured', evidence: expect.stringContaining("not 'ultra'") });
    writeFileSync(join(cwd, 'remote.json'), JSON.stringify({ old: { type: 'sse', url: 'http://127.0.0.1:9/sse' } }));
    ({ outcome } = await runAttempt(codexAdapter, codexTaskFor(bin, server.url, dir.dir, { cwd, options: { permissions: 'workspace', mcp: 'remote.json' } })));
    expect(outcome.providerFailure).toMatchObject({ class: 'misconfigured', evidence: expect.stringContaining("server 'old' is an SSE server") });
    expect(server.requests).toHaveLength(0);
  });
});
