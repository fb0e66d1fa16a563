import { toPublicMetadata } from './build-record.js';
import { diagnosticFlatKeys, recordKeys, type FlatData } from './flat-keys.js';
import type { ExecutionRecord } from './schemas/execution-record.js';

/**
 * The `data` of a node record's event as the live stream may send it (contract, Where facts are
 * exposed: "shared metadata, excluding output, diagnostics, full session id"). The record under
 * `execution` becomes its public metadata (a cache record keeps its decision without the
 * output); the flat keys written for the output, the diagnostics and the session id are left
 * out. Other flat keys stay: `suspend_point`, a wait's `wake_at`, a gate's `message`.
 */
export function liveNodeEventData(data: Readonly<FlatData>): FlatData {
  const live: FlatData = {};
  for (const [key, value] of Object.entries(data)) {
    if (key !== 'execution' && !isPrivateFlatKey(key)) live[key] = value;
  }
  const execution = data.execution;
  if (!isObject(execution)) return live;
  if (isObject(execution.cache)) {
    const { action, invalidatingDeps } = execution.cache;
    live.execution = { runId: execution.runId, path: execution.path, node: execution.node, cache: { action, invalidatingDeps } };
    return live;
  }
  const metadata = toPublicMetadata(execution as unknown as ExecutionRecord);
  live.execution = metadata;
  // A diagnostic's flat key can share a name with a record's own (`command`): the record's stays.
  if (isObject(metadata.node) && isObject(metadata.lifecycle)) Object.assign(live, safeRecordKeys(metadata));
  return live;
}

/** `outputKeys` and `structuredKeys` of event-data.ts, for the current and the prior output. */
const OUTPUT_KEY = /^(node_output|prior_output)(_truncated|_original_bytes|_spill_path)?$|^(prior_)?structured_output$|^declared_output_paths$/;

function isPrivateFlatKey(key: string): boolean {
  return key === 'session_id' || diagnosticFlatKeys.has(key) || OUTPUT_KEY.test(key);
}

/** The record's own flat keys; a row too malformed to derive them from keeps none. */
function safeRecordKeys(metadata: ExecutionRecord): FlatData {
  try {
    return recordKeys(metadata);
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
