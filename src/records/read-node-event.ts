import { CairnError } from '../shared/errors.js';
import { cacheRecordSchema, type CacheAction, type CacheRecord } from './schemas/cache-record.js';
import type { RunEvent } from '../store/schemas/event.js';
import { executionRecordSchema, type Accounting, type ExecutionRecord } from './schemas/execution-record.js';
import type { NodeDescriptor } from './schemas/node-descriptor.js';
import type { Lifecycle, LifecycleStatus } from './schemas/node-lifecycle.js';
import type { Output } from './schemas/node-output.js';
import type { TokenUsage } from './schemas/node-spend.js';
import { cacheActionOfEventType, statusOfEventType, type NodeEventType } from './event-types.js';
import {
  legacyAccounting,
  legacyCost,
  legacyDeclaredPaths,
  legacyLifecycle,
  legacyOutput,
  legacyTokens,
} from './legacy-keys.js';
import { parseTolerant } from './parse-tolerant.js';
import { RECORD_INVALID_CODE, recordInvalid } from './record-error.js';

/** Spend one row reports. Only provider values appear; nothing missing is turned into 0. */
export interface UsageObservation {
  tokens?: TokenUsage;
  /** The row's tokens are `unavailable: incomplete` (a `tokensUnknown` signal). */
  tokensIncomplete?: true;
  costUsd?: number;
  costPartial?: true;
}

interface RowBase {
  seq: number;
  path: string;
  eventType: NodeEventType;
  /** Present on rows with modern metadata. */
  node?: NodeDescriptor;
}

/** A lifecycle row (`node_started` … `node_suspended`), read from its record or its flat keys. */
export interface LifecycleRow extends RowBase {
  kind: 'lifecycle';
  status: LifecycleStatus;
  /** Undefined only for a legacy row whose flat keys do not say enough (e.g. a skip with no cause). */
  lifecycle?: Lifecycle;
  /** The record under `data.execution`, output in its stored form. Absent on legacy rows. */
  record?: ExecutionRecord;
  output?: Output;
  usage: UsageObservation;
  accounting: Accounting;
  /** A composed instance's terminal row: authoritative usage for the instance's scope (rule 4). */
  instanceTotal: boolean;
  /** The process group id recorded on `node_started`. */
  pid?: number;
}

/** A cache row; `output` is the replayed output, or the prior output that was dropped. */
export interface CacheRow extends RowBase {
  kind: 'cache';
  action: CacheAction;
  record?: CacheRecord;
  output?: Output;
}

export type NodeRow = LifecycleRow | CacheRow;

/**
 * Reads a persisted event as a node row; undefined for events that are not node records.
 * Throws a CairnError when the row carries modern metadata (`data.execution`) that is
 * incomplete or contradicts its envelope: such a row cannot be trusted for resume.
 */
export function readNodeEvent(event: RunEvent): NodeRow | undefined {
  if (event.step_name === null) return undefined;
  const status = statusOfEventType(event.event_type);
  if (status !== undefined) return readLifecycleRow(event, event.step_name, status);
  const action = cacheActionOfEventType(event.event_type);
  if (action !== undefined) return readCacheRow(event, event.step_name, action);
  return undefined;
}

function readLifecycleRow(event: RunEvent, path: string, status: LifecycleStatus): LifecycleRow {
  const data = event.data;
  const base = { seq: event.seq, path, eventType: event.event_type as NodeEventType, kind: 'lifecycle' as const, status };
  const pid = typeof data.pid === 'number' && Number.isInteger(data.pid) ? data.pid : undefined;
  const extras = pid === undefined ? {} : { pid };
  if (data.execution === undefined) {
    const accounting = legacyAccounting(data);
    const output = legacyOutput(data, 'node_output');
    const tokens = legacyTokens(data);
    const costUsd = legacyCost(data);
    const lifecycle = legacyLifecycle(status, data);
    return {
      ...base,
      ...extras,
      ...(lifecycle !== undefined ? { lifecycle } : {}),
      ...(output !== undefined ? { output } : {}),
      usage: { ...(tokens !== undefined ? { tokens } : {}), ...(costUsd !== undefined ? { costUsd } : {}) },
      accounting,
      instanceTotal: isTerminal(status) && (accounting === 'instance' || data.type === 'compose_fan_out_instance'),
    };
  }
  const parsed = parseTolerant(executionRecordSchema, data.execution);
  if (!parsed.success) throw recordInvalid(`execution record in ${describeRow(event)}`, parsed.error, rowContext(event));
  const record = parsed.data;
  checkEnvelope(event, record.runId, record.path);
  if (record.lifecycle.status !== status) {
    throw rowError(event, `its lifecycle status '${record.lifecycle.status}' does not match event type '${event.event_type}'`);
  }
  let output = record.output;
  if (output !== undefined && output.declaredOutputPaths === undefined) {
    const declared = legacyDeclaredPaths(data);
    if (declared !== undefined) output = { ...output, declaredOutputPaths: declared };
  }
  return {
    ...base,
    ...extras,
    node: record.node,
    lifecycle: record.lifecycle,
    record,
    ...(output !== undefined ? { output } : {}),
    usage: usageOfRecord(record),
    accounting: record.accounting,
    instanceTotal:
      isTerminal(status) && (record.accounting === 'instance' || record.node.kind === 'compose_fan_out_instance'),
  };
}

function readCacheRow(event: RunEvent, path: string, action: CacheAction): CacheRow {
  const data = event.data;
  const base = { seq: event.seq, path, eventType: event.event_type as NodeEventType, kind: 'cache' as const, action };
  if (data.execution === undefined) {
    const output = legacyOutput(data, action === 'replayed' ? 'node_output' : 'prior_output');
    return { ...base, ...(output !== undefined ? { output } : {}) };
  }
  const parsed = parseTolerant(cacheRecordSchema, data.execution);
  if (!parsed.success) throw recordInvalid(`cache record in ${describeRow(event)}`, parsed.error, rowContext(event));
  const record = parsed.data;
  checkEnvelope(event, record.runId, record.path);
  if (record.cache.action !== action) {
    throw rowError(event, `its cache action '${record.cache.action}' does not match event type '${event.event_type}'`);
  }
  const output = record.cache.action === 'replayed' ? record.cache.output : record.cache.prior;
  return { ...base, node: record.node, record, output };
}

function usageOfRecord(record: ExecutionRecord): UsageObservation {
  const { tokens, costUsd } = record.spend;
  const usage: UsageObservation = {};
  if (tokens.source === 'provider') usage.tokens = tokens.value;
  else if (tokens.reason === 'incomplete') usage.tokensIncomplete = true;
  if (costUsd.source === 'provider') {
    usage.costUsd = costUsd.value;
    if (costUsd.partial === true) usage.costPartial = true;
  }
  return usage;
}

function isTerminal(status: LifecycleStatus): boolean {
  return status === 'completed' || status === 'failed';
}

function checkEnvelope(event: RunEvent, runId: string, path: string): void {
  if (runId !== event.run_id) throw rowError(event, `its record names run '${runId}'`);
  if (path !== event.step_name) throw rowError(event, `its record names path '${path}'`);
}

function rowContext(event: RunEvent): Record<string, unknown> {
  return { runId: event.run_id, seq: event.seq, path: event.step_name, eventType: event.event_type };
}

function rowError(event: RunEvent, problem: string): CairnError {
  return new CairnError(
    RECORD_INVALID_CODE,
    `Invalid ${describeRow(event)}: ${problem}`,
    { reason: 'record_invalid', ...rowContext(event) },
  );
}

function describeRow(event: RunEvent): string {
  return `event ${event.seq} ('${event.event_type}' for '${event.step_name}')`;
}
