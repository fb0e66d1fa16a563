/**
 * A separate process that appends events to a run as fast as it can, the way supervisor workers
 * do, until it is told to stop over IPC. Usage: fork with `--import tsx`, argv: database path,
 * then run ids and their conversation ids as `runId:conversationId`.
 */
import { openStore, sqliteStoreConfig } from '../../src/store/open-store.js';

const [databasePath, ...runArgs] = process.argv.slice(2);
if (!databasePath || runArgs.length === 0) throw new Error('usage: event-writer-process <db> <runId:conversationId>...');
const runs = runArgs.map((arg) => {
  const [runId, conversationId] = arg.split(':');
  return { runId: runId!, conversationId: conversationId! };
});

const store = openStore(sqliteStoreConfig(databasePath));
let stopped = false;
let written = 0;
process.on('message', (message) => {
  if ((message as { type?: string }).type === 'stop') stopped = true;
});
process.send?.({ type: 'started' });
while (!stopped) {
  const run = runs[written % runs.length]!;
  const batch = 1 + (written % 3);
  await store.appendEvents(
    Array.from({ length: batch }, (_, i) => ({
      run_id: run.runId,
      conversation_id: run.conversationId,
      event_type: 'node_started',
      step_name: `n${written + i}`,
      data: {},
    })),
  );
  written += batch;
  await new Promise((resolve) => setImmediate(resolve));
}
await store.close();
process.send?.({ type: 'stopped', written }, () => process.exit(0));
