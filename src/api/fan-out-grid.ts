import { rebuildRunSnapshot } from '../records/index.js';
import { isInterrupted } from '../records/interrupted.js';
import { CairnError } from '../shared/errors.js';
import { childRunOutput } from '../runs/child-output.js';
import type { RunEvent } from '../store/schemas/event.js';
import type { Run } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';
import { validateStoredDefinition } from '../workflow/validate-definition.js';
import type { FanOutGrid, FanOutGridItem, FanOutItemStatus } from '../wire/fan-out.js';

const PREVIEW_CHARS = 200;

/**
 * The fan-out grid of one node of a run: every item (from the node's `fan_out_instances`
 * snapshot) with its status, attempts, duration, cost, output preview and error, one page at a
 * time, and the counts per status over all items. In-run instances are read from the run's own
 * events; child runs from their rows (output previews only for the page's completed children).
 */
export async function readFanOutGrid(store: Store, run: Run, nodeId: string, page: { limit: number; offset: number }): Promise<FanOutGrid> {
  requireFanOutNode(await store.getRunDefinition(run.id), run.workflow_name, nodeId);
  const events = await store.listRunEvents(run.id);
  const snapshot = rebuildRunSnapshot(events);
  const instances = snapshot.fanOutInstances.get(nodeId) ?? [];
  const children = await store.listChildRuns(run.id, nodeId);
  const mode = children.length ? 'child_runs' : modeOf(events, nodeId);
  const items: FanOutGridItem[] =
    mode === 'child_runs'
      ? await childItems(store, instances, children)
      : instanceItems(events, snapshot, nodeId, instances, run.status === 'running');
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

/** Throws a 4xx naming the problem unless `nodeId` is a `workflow:` node with `fan_out` of the run's workflow. */
export function requireFanOutNode(definition: unknown, workflowName: string, nodeId: string): void {
  const stored = validateStoredDefinition(definition);
  const node = stored.valid ? stored.workflow.nodes.find((n) => n.id === nodeId) : undefined;
  if (!node) throw new CairnError('NOT_FOUND', `Workflow '${workflowName}' has no node '${nodeId}'`);
  if (!('workflow' in node) || !node.fan_out) {
    throw new CairnError('VALIDATION_FAILED', `Node '${nodeId}' of workflow '${workflowName}' is not a fan-out (a workflow: node with fan_out)`);
  }
}

function modeOf(events: readonly RunEvent[], nodeId: string): 'in_run' | 'child_runs' | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.step_name !== nodeId || e.event_type !== 'node_started') continue;
    const kind = (e.data.execution as { node?: { kind?: string } } | undefined)?.node?.kind;
    return kind === 'compose_fan_out' ? 'in_run' : 'child_runs';
  }
  return null;
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

function instanceItems(
  events: readonly RunEvent[],
  snapshot: ReturnType<typeof rebuildRunSnapshot>,
  nodeId: string,
  instances: readonly Instance[],
  running: boolean,
): FanOutGridItem[] {
  const rows = new Map<string, RunEvent[]>();
  // Instances whose nodes have rows: an instance's own rows are written once it ended.
  const begun = new Set<string>();
  for (const e of events) {
    if (e.step_name === null || !e.step_name.startsWith(`${nodeId}[`)) continue;
    const slash = e.step_name.indexOf('/');
    if (slash >= 0) {
      begun.add(e.step_name.slice(0, slash));
      continue;
    }
    let list = rows.get(e.step_name);
    if (!list) rows.set(e.step_name, (list = []));
    list.push(e);
  }
  const costs = new Map<number, number>();
  for (const [path, snap] of snapshot.nodes) {
    const match = /^(.+)\[(\d+)\](?:\/|$)/.exec(path);
    if (!match || match[1] !== nodeId || snap.usage.costUsd === undefined) continue;
    const ordinal = Number(match[2]);
    costs.set(ordinal, (costs.get(ordinal) ?? 0) + snap.usage.costUsd);
  }
  return instances.map((instance) => {
    const path = `${nodeId}[${instance.ordinal}]`;
    const list = rows.get(path) ?? [];
    const last = list.at(-1);
    const execution = last?.data.execution as { timing?: { durationMs?: number }; lifecycle?: { error?: string } } | undefined;
    const status: FanOutItemStatus =
      !last ? (running && begun.has(path) ? 'running' : 'pending')
        : last.event_type === 'node_started' ? 'running'
          : last.event_type === 'node_completed' ? 'completed'
            : isInterrupted(last.data) ? 'pending' : 'failed';
    const output = typeof last?.data.node_output === 'string' ? last.data.node_output : null;
    return {
      index: instance.ordinal,
      identity: instance.identity,
      item: instance.item,
      childRunId: null,
      status,
      attempts: list.filter((e) => e.event_type === 'node_started').length,
      durationMs: status === 'completed' || status === 'failed' ? (execution?.timing?.durationMs ?? null) : null,
      costUsd: costs.get(instance.ordinal) ?? null,
      outputPreview: status === 'completed' && output !== null ? output.slice(0, PREVIEW_CHARS) : null,
      error: status === 'failed' ? (execution?.lifecycle?.error ?? null) : null,
    };
  });
}
