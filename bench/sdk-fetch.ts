import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import OpenAI from 'openai';
import { openStore, sqliteStoreConfig, type Store } from '../src/store/open-store.js';
import { sdkFetch } from '../src/worker/providers/sdk-fetch.js';
import { createRunRow } from '../test/helpers/supervisor.js';
import { makeTempHome } from '../test/helpers/temp-home.js';
import { startChatServerProcess } from './chat-server.js';

/**
 * The HTTP client under the `openai` SDK: Node's global `fetch` against Cairn's `sdkFetch`
 * (undici's `request` under a WHATWG Response). 1000 streamed chat completions, 32 in flight,
 * against a Chat Completions server in its own process that answers each after 20 ms. Reports
 * this process's CPU per call (the SDK and the client) and the ratio to the server-bound ideal
 * (what the bare SDK reaches on this machine with nothing else of Cairn around it). Each client
 * warms up for two rounds first; the median of three is shown.
 *
 * A third row is a floor for Cairn's AI nodes: `sdkFetch`, with each call between two durable
 * commits through Cairn's own store (a `node_started` row before, a 2 KB terminal row after,
 * batched per tick as a worker thread batches them), all on this one thread. What the AI nodes
 * bench loses beyond it is Cairn's path around the call, not the durability of its records.
 */

const CALLS = 1000;
const IN_FLIGHT = 32;
const LATENCY_MS = 20;

export interface SdkFetchRow {
  client: string;
  cpuMsPerCall: number;
  ratio: number;
}

/** A node's two rows around its call, in the run of `records`. */
interface CallRecords {
  store: Store;
  runId: string;
  conversationId: string;
}

const END_DATA = { execution: { output: 'x'.repeat(2_000) } };

async function round(client: OpenAI, records?: CallRecords): Promise<{ cpuMs: number; wallMs: number }> {
  let started = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (started < CALLS) {
        const step = `p${started++}`;
        const row = (event_type: string, data: Record<string, unknown>) => ({ run_id: records!.runId, conversation_id: records!.conversationId, event_type, step_name: step, data });
        if (records) await records.store.appendEvents([row('node_started', { attempt: 1 })]);
        const stream = await client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
        for await (const _ of stream) void _;
        if (records) await records.store.appendEvents([{ ...row('node_completed', END_DATA), ends_attempt: randomUUID() }]);
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
    const home = await makeTempHome();
    const store = openStore(sqliteStoreConfig(join(home.home, 'floor.sqlite')));
    const run = await createRunRow(store, 'name: floor\ndescription: rows of calls\nnodes:\n  - id: a\n    bash: "true"\n');
    const records = { store, runId: run.id, conversationId: run.conversation_id };
    const clients = [
      ['global fetch', undefined, undefined],
      ['sdkFetch (undici request)', sdkFetch, undefined],
      ['sdkFetch, each call between two durable commits (the floor)', sdkFetch, records],
    ] as const;
    try {
      for (const [name, fetch, withRecords] of clients) {
        const client = new OpenAI({ apiKey: 'bench', baseURL: url, maxRetries: 0, ...(fetch ? { fetch } : {}) });
        for (let i = 0; i < 2; i++) await round(client, withRecords);
        const runs = [await round(client, withRecords), await round(client, withRecords), await round(client, withRecords)].sort((a, b) => a.wallMs - b.wallMs);
        const median = runs[1]!;
        rows.push({ client: name, cpuMsPerCall: median.cpuMs / CALLS, ratio: (Math.ceil(CALLS / IN_FLIGHT) * LATENCY_MS) / median.wallMs });
      }
    } finally {
      await store.close();
      await home.close();
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
