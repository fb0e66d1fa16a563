/**
 * A separate process that creates runs one at a time, the way the API process does when a run
 * is requested, so that another process sees each commit arrive from outside.
 * Protocol: sends `ready`; on each `create`, creates a run and sends `created` with its id.
 * Usage: fork with `--import tsx`; argv: store config as JSON.
 */
import { openStore, storeConfigSchema } from '../../../src/store/open-store.js';
import { newRun } from '../fixtures.js';

const [configJson] = process.argv.slice(2);
if (!configJson) throw new Error('usage: run-writer-process <store config json>');
const store = openStore(storeConfigSchema.parse(JSON.parse(configJson)));

process.on('message', (message) => {
  if ((message as { type?: string }).type !== 'create') return;
  void store.createRun(newRun()).then((run) => process.send?.({ type: 'created', id: run.id }));
});
process.send?.({ type: 'ready' });
