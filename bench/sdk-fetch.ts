import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import OpenAI from 'openai';
import { sdkFetch } from '../src/worker/providers/sdk-fetch.js';

/**
 * The HTTP client under the `openai` SDK: Node's global `fetch` against Cairn's `sdkFetch`
 * (undici's `request` under a WHATWG Response). 1000 streamed chat completions, 32 in flight,
 * against a Chat Completions server in its own process that answers each after 20 ms. Reports
 * this process's CPU per call (the SDK and the client) and the ratio to the server-bound ideal
 * (what the bare SDK reaches on this machine with nothing else of Cairn around it). Each client
 * warms up for two rounds first; the median of three is shown.
 */

const CALLS = 1000;
const IN_FLIGHT = 32;
const LATENCY_MS = 20;

// Plain JavaScript, so the server needs nothing but Node: the SSE frames the API streams.
const SERVER = `
const http = require('node:http');
const chunk = (c) => 'data: ' + JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'bench', ...c }) + '\\n\\n';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] }));
    res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    res.write(chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
    res.end('data: [DONE]\\n\\n');
  }, ${LATENCY_MS}));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

export interface SdkFetchRow {
  client: string;
  cpuMsPerCall: number;
  ratio: number;
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${port.toString().trim()}/v1`, child };
}

async function round(client: OpenAI): Promise<{ cpuMs: number; wallMs: number }> {
  let started = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (started < CALLS) {
        started++;
        const stream = await client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
        for await (const _ of stream) void _;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t0 };
}

export async function sdkFetchComparison(): Promise<SdkFetchRow[]> {
  const { url, child } = await startServer();
  try {
    const rows: SdkFetchRow[] = [];
    for (const [name, fetch] of [['global fetch', undefined], ['sdkFetch (undici request)', sdkFetch]] as const) {
      const client = new OpenAI({ apiKey: 'bench', baseURL: url, maxRetries: 0, ...(fetch ? { fetch } : {}) });
      for (let i = 0; i < 2; i++) await round(client);
      const runs = [await round(client), await round(client), await round(client)].sort((a, b) => a.cpuMs - b.cpuMs);
      const median = runs[1]!;
      rows.push({ client: name, cpuMsPerCall: median.cpuMs / CALLS, ratio: (Math.ceil(CALLS / IN_FLIGHT) * LATENCY_MS) / median.wallMs });
    }
    return rows;
  } finally {
    child.kill();
  }
}

export function formatSdkFetchTable(rows: readonly SdkFetchRow[]): string {
  const lines = [
    `## The openai SDK's HTTP client: ${CALLS} streamed calls, ${IN_FLIGHT} in flight, server answering in ${LATENCY_MS} ms (own process)`,
    '',
    '| client | CPU ms per call (SDK + client) | ideal / wall |',
    '|---|---:|---:|',
  ];
  for (const r of rows) lines.push(`| ${r.client} | ${r.cpuMsPerCall.toFixed(2)} | ${r.ratio.toFixed(2)} |`);
  return lines.join('\n') + '\n';
}
