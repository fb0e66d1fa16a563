import type { CacheRecord } from './schemas/cache-record.js';
import type { NewRunEvent } from '../store/schemas/event.js';
import type { ExecutionRecord } from './schemas/execution-record.js';
import { FAN_OUT_INSTANCES_EVENT, fanOutInstancesSchema, type FanOutInstance } from './schemas/fan-out-instances.js';
import type { Output } from './schemas/node-output.js';
import { cacheEventTypeByAction, nodeEventTypeByStatus, type CacheEventType, type LifecycleEventType } from './event-types.js';
import { outputKeys, recordKeys, type FlatData } from './flat-keys.js';
import { storedOutput } from './output-preview.js';
import { recordInvalid } from './record-error.js';
import { countedUsageOf } from './run-totals-fold.js';

/** A node event ready to append, once the caller adds the run's `conversation_id`. */
export type NodeEventDraft<T extends string = string> = Omit<NewRunEvent, 'conversation_id' | 'event_type'> & {
  event_type: T;
  step_name: string;
};

/** Facts about the attempt that are not part of the record. */
export interface NodeEventExtras {
  /** Process group id of an exec attempt's child, on `node_started`, for take-over after a crash. */
  pid?: number;
}

/**
 * The event for an execution record: type from its lifecycle, the record under
 * `data.execution` (output in its stored form: at most the 32 KiB preview) and the flat keys.
 */
export function nodeEventOf(record: ExecutionRecord, extras: NodeEventExtras = {}): NodeEventDraft<LifecycleEventType> {
  const stored = record.output === undefined ? undefined : storedOutput(record.output);
  const execution = stored === undefined || stored === record.output ? record : { ...record, output: stored };
  const data: FlatData = { execution, ...recordKeys(record) };
  if (stored !== undefined) Object.assign(data, outputKeys(stored, 'node_output'), structuredKeys(stored, ''));
  if (extras.pid !== undefined) data.pid = extras.pid;
  const event = { run_id: record.runId, step_name: record.path, event_type: nodeEventTypeByStatus[record.lifecycle.status], data };
  // What the row adds to its run's totals, read here where records are read: the store folds it in.
  const adds = countedUsageOf(event);
  return adds !== undefined && Object.keys(adds).length > 0 ? { ...event, adds_to_totals: adds } : event;
}

/**
 * The event for a cache record. Replayed output goes under the normal output keys with
 * `reason: prior_success`; reset and invalidated output go under `prior_*` keys.
 */
export function cacheEventOf(record: CacheRecord): NodeEventDraft<CacheEventType> {
  const cache = record.cache;
  let data: FlatData;
  let execution: CacheRecord;
  if (cache.action === 'replayed') {
    const output = storedOutput(cache.output);
    execution = output === cache.output ? record : { ...record, cache: { ...cache, output } };
    data = { execution, reason: 'prior_success', ...outputKeys(output, 'node_output'), ...structuredKeys(output, '') };
  } else {
    const prior = storedOutput(cache.prior);
    execution = prior === cache.prior ? record : { ...record, cache: { ...cache, prior } };
    data = { execution, ...outputKeys(prior, 'prior_output'), ...structuredKeys(prior, 'prior_') };
    if (cache.action === 'invalidated') {
      data.reason = 'stale_dependency';
      data.invalidating_deps = cache.invalidatingDeps;
    }
  }
  return { run_id: record.runId, step_name: record.path, event_type: cacheEventTypeByAction[cache.action], data };
}

/** The `fan_out_instances` event of the fan-out node at `path`; throws on an invalid snapshot. */
export function fanOutInstancesEventOf(
  runId: string,
  path: string,
  instances: readonly FanOutInstance[],
): NodeEventDraft<typeof FAN_OUT_INSTANCES_EVENT> {
  const parsed = fanOutInstancesSchema.safeParse(instances);
  if (!parsed.success) throw recordInvalid('fan-out instance snapshot', parsed.error, { runId, path });
  return { run_id: runId, step_name: path, event_type: FAN_OUT_INSTANCES_EVENT, data: { instances: parsed.data } };
}

function structuredKeys(output: Output, prefix: '' | 'prior_'): FlatData {
  const keys: FlatData = {};
  if (output.structured !== undefined) keys[`${prefix}structured_output`] = output.structured;
  if (prefix === '' && output.declaredOutputPaths !== undefined) keys.declared_output_paths = output.declaredOutputPaths;
  return keys;
}
