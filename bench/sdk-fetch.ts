import OpenAI from 'openai';
import { sdkFetch } from '../src/worker/providers/sdk-fetch.js';
import { startChatServerProcess } from './chat-server.js';

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

export interface SdkFetchRow {
  client: string;
  cpuMsPerCall: number;
  ratio: number;
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
  const server = await startChatServerProcess(LATENCY_MS);
  const url = server.url;
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
    await server.close();
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
