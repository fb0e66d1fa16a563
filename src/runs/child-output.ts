import { rebuildRunSnapshot } from '../records/index.js';
import { fullOutput } from '../records/full-output.js';
import type { Store } from '../store/store.js';
import { validateStoredDefinition } from '../workflow/checks/validate-definition.js';

/**
 * A completed child run's output, as its parent's `workflow:` node reads it: its `returns:`
 * node's, else that of its last node (in the order written) that completed and that no other node
 * depends on. Read from the child's events (a spilled output from its file).
 */
export async function childRunOutput(store: Pick<Store, 'getRunDefinition' | 'listRunEvents'>, childRunId: string): Promise<string> {
  const stored = validateStoredDefinition(await store.getRunDefinition(childRunId));
  if (!stored.valid) return '';
  const snapshot = rebuildRunSnapshot(await store.listRunEvents(childRunId));
  const done = (id: string) => {
    const snap = snapshot.nodes.get(id);
    return snap?.status === 'completed' && snap.reusable ? snap : undefined;
  };
  const { returns, nodes } = stored.workflow;
  const chosen = returns !== undefined ? done(returns) : undefined;
  if (chosen) return fullOutput(chosen);
  const needed = new Set(nodes.flatMap((n) => n.depends_on ?? []));
  for (let i = nodes.length - 1; i >= 0; i--) {
    const id = nodes[i]!.id;
    const snap = needed.has(id) ? undefined : done(id);
    if (snap) return fullOutput(snap);
  }
  return '';
}
