import type { RunEvent } from '../store/schemas/event.js';
import type { CheckoutObservation } from './schemas/checkout-observation.js';
import type { ExecutionMetadata, ExecutionRecord, Invocation } from './schemas/execution-record.js';
import { FAN_OUT_INSTANCES_EVENT, fanOutInstancesSchema, type FanOutInstance } from './schemas/fan-out-instances.js';
import type { NodeDescriptor } from './schemas/node-descriptor.js';
import type { Lifecycle, LifecycleStatus } from './schemas/node-lifecycle.js';
import type { PersistedOutput } from './schemas/node-output.js';
import type { RunTotals } from '../store/schemas/run-usage.js';
import { toPublicMetadata } from './build-record.js';
import type { NodeEventType } from './event-types.js';
import { readNodeEvent, type CacheRow, type LifecycleRow, type NodeRow, type UsageObservation } from './read-node-event.js';
import { countedContributions, countsTowardNode, sumUsage, toRunTotals, type UsageTotals } from './usage.js';

/** A prior success that a resumed run can reuse instead of running the node again. */
export interface ReusableOutput {
  /** The stored text: the 32 KiB preview when `persisted.truncated`; read `persisted.spillPath` for the rest. */
  text: string;
  structured?: unknown;
  declaredOutputPaths?: string[][];
  /** Truncation and spill provenance, when the stored text is not the whole output. */
  persisted?: PersistedOutput;
  /** Metadata of the completion this output belongs to (rows with modern metadata only). */
  completion?: ExecutionMetadata;
  /** True when the latest row was a prior-success replay rather than the completion itself. */
  replayed: boolean;
  seq: number;
}

/** An attempt that started and has no terminal row: the process may still be running. */
export interface InFlightAttempt {
  seq: number;
  attemptId?: string;
  startedAt?: string;
  /** Process group id recorded on `node_started`, to kill an orphan before running again. */
  pid?: number;
  /**
   * What the `node_started` record said of the attempt, for the record that closes it: the
   * checkout it found, and (an AI attempt) its binding and the spend it started from.
   */
  started?: Pick<ExecutionRecord, 'binding' | 'spend'> & { checkoutStart?: CheckoutObservation };
}

export interface NodeSnapshot {
  path: string;
  node?: NodeDescriptor;
  /** Status of the latest lifecycle row (cache rows are not lifecycle). */
  status?: LifecycleStatus;
  /** The latest lifecycle, rebuilt from its record or flat keys; absent when a legacy row says too little. */
  lifecycle?: Lifecycle;
  lastEventType: NodeEventType;
  lastSeq: number;
  /** The latest invocation (rows with modern metadata only). */
  invocation?: Invocation;
  /** The invocation has not finished: its latest row is started, suspended or failed. */
  invocationOpen: boolean;
  /** Attempts started in the latest invocation (legacy rows: since the last completion, skip or cache row). */
  attemptsStarted: number;
  inFlight?: InFlightAttempt;
  reusable?: ReusableOutput;
  /** This node's own spend over all its attempts and passes (failed ones included). */
  usage: UsageTotals;
}

export interface RunSnapshot {
  nodes: Map<string, NodeSnapshot>;
  /** First valid `fan_out_instances` snapshot per fan-out node path. */
  fanOutInstances: Map<string, FanOutInstance[]>;
  /** Run-level usage (accounting rules 2-4). */
  usage: UsageTotals;
  /** The same usage as run metadata keys. */
  totals: RunTotals;
}

interface NodeState extends NodeSnapshot {
  attemptIds: Set<string>;
  completion?: ExecutionMetadata;
  observations: UsageObservation[];
}

/**
 * Rebuilds what a resumed or taken-over run needs from its persisted events, in `seq` order.
 * Throws a CairnError when a row carries modern metadata that is incomplete or invalid.
 * Every modern row is validated, about 16 µs a row (a 1000-node fan-out, 2000 rows: ~30 ms).
 */
export function rebuildRunSnapshot(events: readonly RunEvent[]): RunSnapshot {
  const states = new Map<string, NodeState>();
  const fanOutInstances = new Map<string, FanOutInstance[]>();
  const rows: NodeRow[] = [];
  for (const event of events) {
    if (event.event_type === FAN_OUT_INSTANCES_EVENT) {
      restoreInstances(fanOutInstances, event);
      continue;
    }
    const row = readNodeEvent(event);
    if (row === undefined) continue;
    rows.push(row);
    const state = stateFor(states, row);
    if (row.kind === 'lifecycle') applyLifecycle(state, row);
    else applyCache(state, row);
  }
  const nodes = new Map<string, NodeSnapshot>();
  for (const [path, state] of states) {
    const { attemptIds: _ids, completion: _completion, observations, ...snapshot } = state;
    nodes.set(path, { ...snapshot, usage: sumUsage(observations) });
  }
  const usage = sumUsage(countedContributions(rows).map((c) => c.usage));
  return { nodes, fanOutInstances, usage, totals: toRunTotals(usage) };
}

/** Nodes whose latest attempt started and never finished (candidates for kill-and-retry). */
export function listInFlightNodes(snapshot: RunSnapshot): NodeSnapshot[] {
  return [...snapshot.nodes.values()].filter((node) => node.inFlight !== undefined);
}

function stateFor(states: Map<string, NodeState>, row: NodeRow): NodeState {
  let state = states.get(row.path);
  if (state === undefined) {
    state = {
      path: row.path,
      lastEventType: row.eventType,
      lastSeq: row.seq,
      invocationOpen: false,
      attemptsStarted: 0,
      usage: {},
      attemptIds: new Set(),
      observations: [],
    };
    states.set(row.path, state);
  }
  state.lastEventType = row.eventType;
  state.lastSeq = row.seq;
  if (row.node !== undefined) state.node = row.node;
  return state;
}

function applyLifecycle(state: NodeState, row: LifecycleRow): void {
  state.status = row.status;
  if (row.lifecycle !== undefined) state.lifecycle = row.lifecycle;
  else delete state.lifecycle;
  trackInvocation(state, row);
  state.invocationOpen = row.status === 'started' || row.status === 'suspended' || row.status === 'failed';
  if (row.status === 'started') {
    const record = row.record;
    state.inFlight = {
      seq: row.seq,
      ...(record !== undefined ? { attemptId: record.attempt.id, startedAt: record.attempt.startedAt } : {}),
      ...(row.pid !== undefined ? { pid: row.pid } : {}),
      ...(record !== undefined ? { started: startedFacts(record) } : {}),
    };
  } else {
    delete state.inFlight;
  }
  // Only a completion is reusable; every other state supersedes an earlier success.
  if (row.status === 'completed') {
    state.completion = row.record === undefined ? undefined : toPublicMetadata(row.record);
    state.reusable = reusableFrom(row, state.completion, false);
  } else {
    delete state.completion;
    delete state.reusable;
  }
  // Failed rows count too: their spend was real even though their output is not reusable.
  if (countsTowardNode(row)) state.observations.push(row.usage);
}

function startedFacts(record: ExecutionRecord): NonNullable<InFlightAttempt['started']> {
  const checkout = record.attempt.checkoutStart;
  return { binding: record.binding, spend: record.spend, ...(checkout !== undefined ? { checkoutStart: checkout } : {}) };
}

/** A new invocation id (or, for legacy rows, a start after a finished one) begins a new attempt count. */
function trackInvocation(state: NodeState, row: LifecycleRow): void {
  const invocation = row.record?.invocation;
  if (invocation !== undefined) {
    if (state.invocation?.id !== invocation.id) state.attemptIds = new Set();
    state.invocation = invocation;
  } else if (row.status === 'started' && !state.invocationOpen) {
    state.attemptIds = new Set();
  }
  if (row.status === 'started') state.attemptIds.add(row.record?.attempt.id ?? `seq:${row.seq}`);
  state.attemptsStarted = state.attemptIds.size;
}

function applyCache(state: NodeState, row: CacheRow): void {
  // A cache decision settles the node for this pass: nothing of it is still running.
  state.invocationOpen = false;
  delete state.inFlight;
  if (row.action === 'replayed') {
    // A replay adds no spend and inherits the completion it replays.
    state.reusable = reusableFrom(row, state.completion ?? state.reusable?.completion, true);
  } else {
    delete state.reusable;
    delete state.completion;
  }
}

function reusableFrom(row: NodeRow, completion: ExecutionMetadata | undefined, replayed: boolean): ReusableOutput {
  const output = row.output;
  return {
    text: output?.text ?? '',
    ...(output?.structured !== undefined ? { structured: output.structured } : {}),
    ...(output?.declaredOutputPaths !== undefined ? { declaredOutputPaths: output.declaredOutputPaths } : {}),
    ...(output?.persisted !== undefined ? { persisted: output.persisted } : {}),
    ...(completion !== undefined ? { completion } : {}),
    replayed,
    seq: row.seq,
  };
}

function restoreInstances(restored: Map<string, FanOutInstance[]>, event: RunEvent): void {
  if (event.step_name === null || restored.has(event.step_name)) return;
  const parsed = fanOutInstancesSchema.safeParse(event.data.instances);
  if (parsed.success) restored.set(event.step_name, parsed.data);
}
