import { agentWorkerKind } from './agent/kind.js';
import { execWorkerKind } from './exec/kind.js';
import type { WorkerKind, WorkerKinds } from './worker-kind.js';

/** The node kinds whose attempts run on a worker thread, one line each. */
export const builtinWorkerKinds: readonly WorkerKind[] = [execWorkerKind, agentWorkerKind];

/** The table the thread task and the pool dispatch through; `extra` kinds (a test's) are added without editing this file. */
export function workerKindTable(extra: readonly WorkerKind[] = []): WorkerKinds {
  const table = new Map<string, WorkerKind>();
  for (const kind of [...builtinWorkerKinds, ...extra]) {
    if (table.has(kind.kind)) throw new Error(`two worker kinds are called '${kind.kind}'`);
    table.set(kind.kind, kind);
  }
  return table;
}
