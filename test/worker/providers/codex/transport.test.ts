import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../../src/worker/providers/codex/adapter.js';
import { startHttpRelay } from '../../../../src/worker/providers/common/http-relay.js';
import { agentReplies, startResponsesServer, type ResponsesServer } from '../../../helpers/responses-server.js';
import { runAttempt, scratch } from '../agent-harness.js';
import { codexClis, codexTaskFor, makeRepo } from './cli.js';

/**
 * How Codex reaches the server through the attempt's relay, on both CLIs: the newest Codex asks
 * for zstd (which the relay's fetch cannot decode) and may try a WebSocket transport (which fetch
 * cannot carry); Codex follows HTTP_PROXY even for the loopback relay; and where Codex's sandbox
 * cannot start, a node that needs it fails, saying why and what to do.
 */

let server: ResponsesServer | undefined;
let dir: ReturnType<typeof scratch>;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  dir.cleanup();
});

// Nothing listens on port 9 (discard): a proxy there refuses every connection.
const deadProxy = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', ALL_PROXY: 'http://127.0.0.1:9', http_proxy: 'http://127.0.0.1:9' };

describe.each(codexClis)('codex transport, $version', ({ bin }) => {
  it('answers a plain call from a server that compresses for clients asking zstd, behind a proxy that cannot reach the relay', async () => {
    server = await startResponsesServer(() => ({ kind: 'stream', deltas: ['plain ', 'answer'] }), { zstdWhenAccepted: true });
    const task = codexTaskFor(bin, server.url, dir.dir, { connection: { baseUrl: server.url, binaryPath: bin, env: { HOME: dir.dir, ...deadProxy } } });
    const { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('plain answer');
    expect(server.requests).toHaveLength(1);
    // The relay asks the server only for encodings it decodes itself.
    expect(server.requests[0]!.headers['accept-encoding']).not.toMatch(/zstd/);
  });

  it("fails a node at workspace where Codex's sandbox cannot start, naming the cause and permissions: full", async () => {
    const cwd = makeRepo(join(dir.dir, 'repo'));
    server = await startResponsesServer(agentReplies([{ steps: [{ tool: 'read', path: 'README.md' }, { tool: 'run', command: 'true' }, { say: 'done' }] }]));
    const task = codexTaskFor(resolve('test/fixtures/codex/without-user-namespaces.sh'), server.url, dir.dir, {
      cwd,
      options: { permissions: 'workspace' },
      connection: { baseUrl: server.url, binaryPath: resolve('test/fixtures/codex/without-user-namespaces.sh'), env: { HOME: dir.dir, NODE_UNDER_TEST: process.execPath, CODEX_UNDER_TEST: bin } },
    });
    const { outcome } = await runAttempt(codexAdapter, task);
    expect(outcome.status).toBe('failed');
    expect(outcome.retryable).toBe(false);
    expect(outcome.providerFailure).toMatchObject({ class: 'misconfigured', evidence: expect.stringMatching(/sandbox cannot start on this machine \(bwrap: .*'permissions: full'/) });
  });
});

it('closes an upgrade (a WebSocket transport) at once, recording no answer, and still relays plain requests', async () => {
  server = await startResponsesServer(() => ({ kind: 'stream', deltas: ['ok'] }));
  const relay = await startHttpRelay(server.url);
  try {
    const url = new URL(`${relay.url}/responses`);
    const closed = await new Promise<string>((done) => {
      const req = request(url, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
      req.on('response', (res) => done(`answered ${res.statusCode}`));
      req.on('upgrade', () => done('upgraded'));
      req.on('error', (err) => done(`closed: ${(err as NodeJS.ErrnoException).code}`));
      req.end();
    });
    expect(closed).toBe('closed: ECONNRESET');
    expect(relay.answers).toEqual([]);
    const plain = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true }) });
    expect(plain.status).toBe(200);
    await plain.text();
    expect(relay.answers.map((a) => a.status)).toEqual([200]);
  } finally {
    await relay.close();
  }
});
