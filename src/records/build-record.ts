import { z } from 'zod';
import { cacheRecordSchema, type CacheRecord } from './schemas/cache-record.js';
import {
  executionRecordSchema,
  type Accounting,
  type Attempt,
  type Binding,
  type Diagnostics,
  type ExecutionMetadata,
  type ExecutionRecord,
  type Invocation,
  type Timing,
} from './schemas/execution-record.js';
import type { NodeDescriptor } from './schemas/node-descriptor.js';
import type { Lifecycle } from './schemas/node-lifecycle.js';
import type { Spend } from './schemas/node-spend.js';
import { causeKindsBySkipReason } from './lifecycle.js';
import { parseNodePath } from './node-path.js';
import { buildOutput, type OutputInput } from './output-preview.js';
import { recordInvalid } from './record-error.js';

/** Everything a writer knows about one node state; optional groups may be left out. */
export interface ExecutionRecordInput {
  runId: string;
  path: string;
  node: NodeDescriptor;
  invocation: Invocation;
  attempt: Attempt;
  /** Defaults to `{}` (no provider, e.g. an exec node). */
  binding?: Binding;
  timing: Timing;
  spend: Spend;
  /** Defaults to `node`: the record carries its own spend. */
  accounting?: Accounting;
  lifecycle: Lifecycle;
  output?: OutputInput;
  diagnostics?: Diagnostics;
  /** The full provider session id. Kept out of the public metadata. */
  sessionId?: string;
}

/**
 * Checks the contract's schema plus the rules a schema cannot see: a well-formed path whose
 * last segment names the node, a skip cause that explains its reason, and a session preview
 * that is not the full session id.
 */
const writableRecordSchema = executionRecordSchema.superRefine((record, ctx) => {
  const segments = parseNodePath(record.path);
  const last = segments?.[segments.length - 1];
  if (!last) {
    ctx.addIssue({ code: 'custom', path: ['path'], message: `'${record.path}' is not a node path` });
  } else if (last.ordinal === undefined && last.id !== record.node.id) {
    ctx.addIssue({ code: 'custom', path: ['node', 'id'], message: `node '${record.node.id}' does not match path '${record.path}'` });
  }
  const lifecycle = record.lifecycle;
  if (lifecycle.status === 'skipped' && !causeKindsBySkipReason[lifecycle.reason].includes(lifecycle.cause.kind)) {
    ctx.addIssue({
      code: 'custom',
      path: ['lifecycle', 'cause', 'kind'],
      message: `cause '${lifecycle.cause.kind}' does not explain skip reason '${lifecycle.reason}'`,
    });
  }
  const preview = record.binding.sessionPreview;
  if (preview !== undefined && record.sessionId !== undefined && preview === record.sessionId) {
    ctx.addIssue({ code: 'custom', path: ['binding', 'sessionPreview'], message: 'must not be the full session id' });
  }
});

/**
 * Builds and validates an execution record. Throws a CairnError (never returns an invalid
 * record), so a caller cannot write a record the contract forbids.
 *
 * Cheap enough to run for every node of a large fan-out: measured on a 2-core dev machine
 * (Node 20, zod 4), about 2 µs per exec record, and about 9 µs with `nodeEventOf` and
 * `JSON.stringify` of the event data added.
 */
export function buildExecutionRecord(input: ExecutionRecordInput): ExecutionRecord {
  const candidate: Record<string, unknown> = {
    runId: input.runId,
    path: input.path,
    node: input.node,
    invocation: input.invocation,
    attempt: input.attempt,
    binding: input.binding ?? {},
    timing: input.timing,
    spend: input.spend,
    accounting: input.accounting ?? 'node',
    lifecycle: input.lifecycle,
  };
  if (input.output !== undefined) candidate.output = buildOutput(input.output);
  if (input.diagnostics !== undefined) candidate.diagnostics = input.diagnostics;
  if (input.sessionId !== undefined) candidate.sessionId = input.sessionId;
  return validate(writableRecordSchema, candidate, 'execution record', input);
}

export type CacheDecisionInput =
  | { action: 'replayed'; output: OutputInput }
  | { action: 'reset'; prior: OutputInput }
  | { action: 'invalidated'; prior: OutputInput; invalidatingDeps: string[] };

export interface CacheRecordInput {
  runId: string;
  path: string;
  node: NodeDescriptor;
  cache: CacheDecisionInput;
}

/** Builds and validates a cache record (replayed, reset or invalidated output). */
export function buildCacheRecord(input: CacheRecordInput): CacheRecord {
  const cache = input.cache;
  const decision =
    cache.action === 'replayed'
      ? { action: cache.action, output: buildOutput(cache.output) }
      : cache.action === 'reset'
        ? { action: cache.action, prior: buildOutput(cache.prior) }
        : { action: cache.action, prior: buildOutput(cache.prior), invalidatingDeps: cache.invalidatingDeps };
  const candidate = { runId: input.runId, path: input.path, node: input.node, cache: decision };
  return validate(cacheRecordSchema, candidate, 'cache record', input);
}

/** The shared public metadata of a record: no output, diagnostics or full session id. */
export function toPublicMetadata(record: ExecutionRecord): ExecutionMetadata {
  return {
    runId: record.runId,
    path: record.path,
    node: record.node,
    invocation: record.invocation,
    attempt: record.attempt,
    binding: record.binding,
    timing: record.timing,
    spend: record.spend,
    accounting: record.accounting,
    lifecycle: record.lifecycle,
  };
}

function validate<S extends z.ZodType>(
  schema: S,
  candidate: unknown,
  what: string,
  input: { runId: string; path: string },
): z.infer<S> {
  const parsed = schema.safeParse(candidate);
  if (!parsed.success) throw recordInvalid(what, parsed.error, { runId: input.runId, path: input.path });
  return parsed.data;
}
