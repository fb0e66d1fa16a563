import { CairnError } from '../../shared/errors.js';
import { childRunOutput } from '../../runs/child-output.js';
import { isRunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { validateStoredDefinition } from '../../workflow/checks/validate-definition.js';
import type { FanOutGrid, FanOutGridItem, FanOutItemStatus } from '../../wire/fan-out.js';
import { FanOutGridFold, PREVIEW_CHARS } from './fan-out-grid-fold.js';


/**
 * The fan-out grid of one node of a run: every item (from the node's `fan_out_instances`
 * snapshot) with its status, attempts, duration, cost, output preview and error, one page at a
 * time, and the counts per status over all items. In-run instances come from the run's own
 * events, folded as they are written (fan-out-grid-fold.ts); child runs from their rows (output
 * previews only for the page's completed children).
 */
export async function readFanOutGrid(store: Store, run: Run, nodeId: string, page: { limit: number; offset: number }): Promise<FanOutGrid> {
  requireFanOutNode(await store.getRunDefinition(run.id), run.workflow_name, nodeId);
  const fold = await foldedGrid(store, run.id, nodeId);
  const children = await store.listChildRuns(run.id, nodeId);
  const mode = children.length ? 'child_runs' : fold.mode;
  const items: FanOutGridItem[] =
    mode === 'child_runs' ? await childItems(store, fold.instances, children) : fold.inRunItems(run.status === 'running', run.status === 'cancelled');
  const counts = Object.fromEntries(['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'].map((s) => [s, 0])) as Record<FanOutItemStatus, number>;
  for (const item of items) counts[item.status] += 1;
  const slice = items.slice(page.offset, page.offset + page.limit);
  if (mode === 'child_runs') {
    for (const item of slice) {
      if (item.status === 'completed' && item.childRunId) item.outputPreview = (await childRunOutput(store, item.childRunId)).slice(0, PREVIEW_CHARS);
    }
  }
  const end = page.offset + slice.length;
  return { runId: run.id, nodeId, mode, total: items.length, counts, items: slice, nextOffset: end < items.length ? end : null };
}

/**
 * The grids asked for lately, each brought up to date with the events written since it was
 * last read: a user paging through a grid, or a dashboard polling a running fan-out, reads only
 * what is new. Few, since one holds a few hundred bytes per item.
 */
const folds = new Map<string, FanOutGridFold>();
const FOLDS_KEPT = 4;
/** Events per read: each read holds the API's event loop for some 30 ms, not the whole log's second. */
const EVENTS_PER_READ = 1_000;

async function foldedGrid(store: Store, runId: string, nodeId: string): Promise<FanOutGridFold> {
  const key = `${runId}\n${nodeId}`;
  const fold = folds.get(key) ?? new FanOutGridFold(nodeId);
  folds.delete(key);
  folds.set(key, fold);
  if (folds.size > FOLDS_KEPT) folds.delete(folds.keys().next().value!);
  for (;;) {
    const batch = await store.listEventsAfter(fold.lastSeq, EVENTS_PER_READ, { runId });
    fold.apply(batch.filter(isRunEvent));
    if (batch.length < EVENTS_PER_READ) return fold;
  }
}

/** Throws a 4xx naming the problem unless `nodeId` is a `workflow:` node with `fan_out` of the run's workflow. */
export function requireFanOutNode(definition: unknown, workflowName: string, nodeId: string): void {
  const stored = validateStoredDefinition(definition);
  const node = stored.valid ? stored.workflow.nodes.find((n) => n.id === nodeId) : undefined;
  if (!node) throw new CairnError('NOT_FOUND', `Workflow '${workflowName}' has no node '${nodeId}'`);
  if (!('workflow' in node) || !node.fan_out) {
    throw new CairnError('VALIDATION_FAILED', `Node '${nodeId}' of workflow '${workflowName}' is not a fan-out (a workflow: node with fan_out)`);
  }
}

type Instance = { ordinal: number; identity: string; item: unknown };

async function childItems(store: Store, instances: readonly Instance[], children: readonly Run[]): Promise<FanOutGridItem[]> {
  const byIndex = new Map(children.map((c) => [c.metadata.child_index, c]));
  const count = Math.max(instances.length, ...children.map((c) => (c.metadata.child_index ?? -1) + 1));
  const items: FanOutGridItem[] = [];
  for (let index = 0; index < count; index++) {
    const child = byIndex.get(index);
    const base = { index, identity: null, item: instances[index]?.item ?? null, outputPreview: null };
    if (!child) {
      items.push({ ...base, childRunId: null, status: 'pending', attempts: 0, durationMs: null, costUsd: null, error: null });
      continue;
    }
    const jobs = await store.listRunJobs(child.id);
    const ended = child.completed_at !== null && child.started_at !== null;
    const cost = child.metadata.totals?.total_cost_usd;
    items.push({
      ...base,
      childRunId: child.id,
      status: child.status,
      attempts: jobs.filter((j) => (j.kind === 'start_run' || j.kind === 'resume_run') && j.status === 'done').length,
      durationMs: ended ? Math.max(0, Date.parse(child.completed_at!) - Date.parse(child.started_at!)) : null,
      costUsd: typeof cost === 'number' ? cost : null,
      error: child.status === 'failed' || child.status === 'cancelled' ? child.error : null,
    });
  }
  return items;
}
