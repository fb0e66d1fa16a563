import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal MCP server over streamable HTTP (JSON-RPC 2.0 POSTed to one URL, each answer a JSON
 * body; GET is refused with 405, so a client opens no event stream): one tool, `shout`, that
 * answers its `text` argument upper-cased. It records every call's arguments and the headers each
 * request carried, so a test can see that an agent CLI offered and called the tool, with the
 * headers the node's mcp file gave the server. The HTTP twin of test/fixtures/mcp/echo-server.mjs.
 */

export interface McpHttpServer {
  url: string;
  /** The `arguments` of each `tools/call`, in order. */
  calls: unknown[];
  /** The headers of every POST. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

const tools = [
  {
    name: 'shout',
    description: 'Upper-cases the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

export async function startMcpHttpServer(): Promise<McpHttpServer> {
  const calls: unknown[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405);
        res.end();
        return;
      }
      headers.push(req.headers);
      let msg: any;
      try {
        msg = JSON.parse(raw);
      } catch {
        res.writeHead(400);
        res.end();
        return;
      }
      if (msg?.id === undefined) {
        // A notification (`notifications/initialized`): accepted, nothing to answer.
        res.writeHead(202);
        res.end();
        return;
      }
      const answer = (body: Record<string, unknown>) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
      };
      switch (msg.method) {
        case 'initialize':
          return answer({ result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'http-shout', version: '1.0.0' } } });
        case 'tools/list':
          return answer({ result: { tools } });
        case 'tools/call':
          calls.push(msg.params?.arguments);
          return answer({ result: { content: [{ type: 'text', text: String(msg.params?.arguments?.text ?? '').toUpperCase() }] } });
        default:
          return answer({ error: { code: -32601, message: `no method ${String(msg.method)}` } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
