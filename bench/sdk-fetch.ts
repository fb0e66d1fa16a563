import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import OpenAI from 'openai';
import { openStore, sqliteStoreConfig, type Store } from '../src/store/open-store.js';
import { sdkFetch } from '../src/worker/providers/common/sdk-fetch.js';
import { createRunRow } from '../test/helpers/supervisor.js';
import { openSse } from '../test/helpers/sse.js';
import { makeTempHome } from '../test/helpers/temp-home.js';
import { startChatServerProcess } from './chat-server.js';
import { openSession, type Session } from './session.js';

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
 *
 * A fourth row is that floor as the AI nodes bench sees it: the rows go into the database of a
 * real `cairn serve`, whose API process streams them over SSE to a client in this process while
 * the calls run (the AI bench watches its runs the same way). Only the scheduling, the worker
 * thread and the record building of Cairn's own path are missing from it.
 */

const CALLS = 1000;
const IN_FLIGHT = 32;
const LATENCY_MS = 20;

export interface SdkFetchRow {
  client: string;
  cpuMsPerCall: number;
  ratio: number;
}

/** Where each call's two rows go: a store, and (the watched floor) the server whose API streams them. */
interface CallRecords {
  store: Store;
  watchedBy?: Session;
}

const END_DATA = { execution: { output: 'x'.repeat(2_000) } };

const FLOOR_WORKFLOW = 'name: floor\ndescription: rows of calls\nnodes:\n  - id: a\n    bash: "true"\n';

async function round(client: OpenAI, records?: CallRecords): Promise<{ cpuMs: number; wallMs: number }> {
  // A run per round, so a watcher's stream carries exactly this round's rows.
  const run = records ? await createRunRow(records.store, FLOOR_WORKFLOW) : undefined;
  const watcher = run && records?.watchedBy ? await openSse(`${records.watchedBy.server.url}/api/stream/${run.conversation_id}`) : undefined;
  let started = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (started < CALLS) {
        const step = `p${started++}`;
        const row = (event_type: string, data: Record<string, unknown>) => ({ run_id: run!.id, conversation_id: run!.conversation_id, event_type, step_name: step, data });
        if (records) await records.store.appendEvents([row('node_started', { attempt: 1 })]);
        const stream = await client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
        for await (const _ of stream) void _;
        if (records) await records.store.appendEvents([{ ...row('node_completed', END_DATA), ends_attempt: randomUUID() }]);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - t0;
  if (watcher) {
    // Not timed: the watcher only has to have been streaming while the calls ran.
    await watcher.until((frames) => frames.length >= 2 * CALLS, 60_000);
    watcher.close();
  }
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

export async function sdkFetchComparison(): Promise<SdkFetchRow[]> {
  const server = await startChatServerProcess(LATENCY_MS);
  const url = server.url;
  try {
    const rows: SdkFetchRow[] = [];
    const home = await makeTempHome();
    const store = openStore(sqliteStoreConfig(join(home.home, 'floor.sqlite')));
    // The watched floor writes into a running server's own database.
    const session = await openSession();
    const served = openStore(sqliteStoreConfig(session.home.paths.database));
    const clients = [
      ['global fetch', undefined, undefined],
      ['sdkFetch (undici request)', sdkFetch, undefined],
      ['sdkFetch, each call between two durable commits (the floor)', sdkFetch, { store }],
      ['the floor, its rows streamed by a server to an SSE client (as in the AI bench)', sdkFetch, { store: served, watchedBy: session }],
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
      await served.close();
      await session.close();
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
