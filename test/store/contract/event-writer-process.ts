/**
 * A separate process that appends events to one run the way a supervisor's worker does (small
 * transactions, sometimes several appends in one tick) and writes a heartbeat now and then.
 * Protocol: sends `ready`, waits for `go`, writes, then sends `done` with how many events it
 * committed and every error it saw (it keeps going after one), and exits.
 * Usage: fork with `--import tsx`; argv: store config as JSON, run id, conversation id, iterations.
 */
import { openStore, storeConfigSchema } from '../../../src/store/open-store.js';

const [configJson, runId, conversationId, iterationsArg] = process.argv.slice(2);
if (!configJson || !runId || !conversationId || !iterationsArg) {
  throw new Error('usage: event-writer-process <store config json> <runId> <conversationId> <iterations>');
}
const store = openStore(storeConfigSchema.parse(JSON.parse(configJson)));
const iterations = Number(iterationsArg);
const errors: { code?: unknown; message: string }[] = [];
let written = 0;

const event = (i: number) => ({
  run_id: runId, conversation_id: conversationId, event_type: 'node_output', step_name: `n${i}`, data: { pid: process.pid, i },
});

async function append(count: number, i: number): Promise<void> {
  try {
    const rows = await store.appendEvents(Array.from({ length: count }, () => event(i)));
    written += rows.length;
  } catch (err) {
    errors.push({ code: (err as { code?: unknown }).code, message: (err as Error).message });
  }
}

await new Promise<void>((resolve) => {
  process.on('message', (message) => (message as { type?: string }).type === 'go' && resolve());
  process.send?.({ type: 'ready' });
});
for (let i = 0; i < iterations; i++) {
  // Every fourth turn, three appends in one tick: they share a transaction.
  if (i % 4 === 0) await Promise.all([append(1, i), append(2, i), append(1, i)]);
  else await append(1 + (i % 3), i);
  if (i % 25 === 0) {
    await store
      .writeHeartbeat({
        id: `writer-${process.pid}`, pid: process.pid, hostname: 'test', started_at: new Date().toISOString(),
        heartbeat_at: new Date().toISOString(), state: 'running',
        concurrency: { limit: 1, perRunLimit: 1, active: 1, queued: 0, runs: 1, perProvider: {} },
      })
      .catch((err: Error) => errors.push({ code: (err as { code?: unknown }).code, message: err.message }));
  }
}
await store.close();
process.send?.({ type: 'done', written, errors }, () => process.exit(0));
