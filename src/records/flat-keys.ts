import type { Diagnostics, ExecutionRecord } from './schemas/execution-record.js';
import type { NodeDescriptor } from './schemas/node-descriptor.js';
import type { Output } from './schemas/node-output.js';

/**
 * The upstream system's flat `data` keys, written beside `data.execution` so that clients and
 * tools that read them keep working (contract, Versioning 3). Values come from the record only.
 */

export type FlatData = Record<string, unknown>;

/** Upstream `type`: `bash` / `script` for exec nodes, the record kind for every other node. */
export function legacyTypeOf(node: NodeDescriptor): string {
  if (node.kind === 'exec') return node.runtime === 'sh' ? 'bash' : 'script';
  return node.kind;
}

/** `node_output` and its truncation/spill provenance, from an output in its stored form. */
export function outputKeys(stored: Output, prefix: 'node_output' | 'prior_output'): FlatData {
  const keys: FlatData = { [prefix]: stored.text };
  const persisted = stored.persisted;
  if (persisted?.truncated) keys[`${prefix}_truncated`] = true;
  if (persisted?.originalBytes !== undefined) keys[`${prefix}_original_bytes`] = persisted.originalBytes;
  if (persisted?.spillPath !== undefined) keys[`${prefix}_spill_path`] = persisted.spillPath;
  return keys;
}

/** Flat keys of an execution record (the output keys are added by the caller from the stored form). */
export function recordKeys(record: ExecutionRecord): FlatData {
  const { node, binding, timing, spend, lifecycle } = record;
  const keys: FlatData = { type: legacyTypeOf(node) };
  if (node.kind === 'agent') keys.command = node.source.kind === 'command' ? node.source.name : null;
  if (node.kind === 'loop') keys.command = node.command ?? null;
  if (node.kind === 'exec' && node.runtime !== 'sh') keys.runtime = node.runtime;
  if (binding.provider !== undefined) keys.provider = binding.provider;
  if (binding.model?.requested !== undefined) keys.model = binding.model.requested;
  if (binding.tier !== undefined) keys.tier = binding.tier;
  if (binding.effort !== undefined) keys.effort = binding.effort;
  if (timing.durationMs !== undefined) keys.duration_ms = timing.durationMs;
  if (spend.tokens.source === 'provider') keys.tokens = spend.tokens.value;
  if (spend.costUsd.source === 'provider') keys.cost_usd = spend.costUsd.value;
  if (spend.stopReason.source === 'provider') keys.stop_reason = spend.stopReason.value;
  if (spend.numTurns.source === 'provider') keys.num_turns = spend.numTurns.value;
  if (binding.model?.resolved.source === 'provider') {
    keys.model_usage = {
      ...(binding.model.requested !== undefined ? { requested: binding.model.requested } : {}),
      resolved: binding.model.resolved.value,
    };
  }
  // Upstream rows mark restated spend with `aggregate: true`; older readers rely on it.
  if (record.accounting !== 'node') keys.aggregate = true;
  switch (lifecycle.status) {
    case 'failed':
      keys.error = lifecycle.error;
      if (lifecycle.retryable === false) keys.retryable = false;
      if (lifecycle.failureKind !== undefined) keys.failure_kind = lifecycle.failureKind;
      if (lifecycle.providerFailure !== undefined) keys.provider_failure = lifecycle.providerFailure;
      break;
    case 'skipped':
      keys.reason = lifecycle.reason;
      keys.cause = lifecycle.cause;
      if ('expr' in lifecycle.cause) keys.expr = lifecycle.cause.expr;
      break;
    case 'suspended':
      keys.suspend_point = lifecycle.point;
      break;
  }
  if (record.sessionId !== undefined) keys.session_id = record.sessionId;
  if (record.diagnostics !== undefined) Object.assign(keys, diagnosticKeys(record.diagnostics));
  return keys;
}

/** Diagnostic → flat key. `maxIterations` keeps its upstream camelCase spelling. */
const diagnosticKeyNames: Readonly<Record<keyof Diagnostics, string>> = {
  iteration: 'iteration',
  loopIterations: 'loop_iterations',
  maxIterations: 'maxIterations',
  ordinal: 'ordinal',
  outputType: 'output_type',
  command: 'command',
  status: 'status',
  sessionSourceNodeId: 'session_source_node_id',
  childRunId: 'child_run_id',
  blockedOnChildRunId: 'blocked_on_child_run_id',
  identity: 'identity',
  approvalDecision: 'approval_decision',
  expr: 'expr',
  sessionForkRequested: 'session_fork_requested',
  sessionForked: 'session_forked',
  fanOut: 'fan_out',
  backgroundTasksIncomplete: 'background_tasks_incomplete',
  mcpUnavailable: 'mcp_unavailable',
  toolCalls: 'tool_calls',
  structuredReasks: 'structured_reasks',
  unreadableLines: 'unreadable_lines',
};

/** The flat keys a record's diagnostics may write. */
export const diagnosticFlatKeys: ReadonlySet<string> = new Set(Object.values(diagnosticKeyNames));

function diagnosticKeys(diagnostics: Diagnostics): FlatData {
  const keys: FlatData = {};
  for (const [name, value] of Object.entries(diagnostics)) {
    if (value !== undefined) keys[diagnosticKeyNames[name as keyof Diagnostics]] = value;
  }
  return keys;
}
