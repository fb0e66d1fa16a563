import { parentPort, workerData } from 'node:worker_threads';
import { WorkflowCatalog } from './catalog.js';
import { catalogCallSchema, toWireError, type CatalogReply } from './catalog-thread-client.js';
import type { CatalogLocations } from './locations.js';

/**
 * The entry of the catalog's worker thread: a catalog of its own (in-process, with its own
 * caches of parsed files) that runs the calls which read, parse, validate or write workflow
 * files, so that a 10,000-node file (about 0.5 s of YAML parsing and checks) never holds up
 * the API's event loop. One call at a time, in arrival order.
 */

const port = parentPort;
if (!port) throw new Error('catalog-thread.js runs only as a worker thread');
const catalog = new WorkflowCatalog(workerData as CatalogLocations, { threadFile: null });

port.on('message', (message: unknown) => {
  const call = catalogCallSchema.parse(message);
  let reply: CatalogReply;
  try {
    // The method names are the catalog's own (checked by the schema), called with its arguments.
    const method = catalog[call.method] as (...args: unknown[]) => unknown;
    reply = { id: call.id, ok: true, value: method.apply(catalog, call.args) };
  } catch (err) {
    reply = { id: call.id, ok: false, error: toWireError(err) };
  }
  port.postMessage(reply);
});
