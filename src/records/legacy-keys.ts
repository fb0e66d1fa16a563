import { z } from 'zod';
import { accountingSchema, type Accounting } from './schemas/execution-record.js';
import {
  failureKindSchema,
  providerFailureSchema,
  skipCauseSchema,
  skipReasonSchema,
  suspensionPointSchema,
  type Lifecycle,
  type LifecycleStatus,
  type SkipCause,
} from './schemas/node-lifecycle.js';
import { outputPathSchema, type Output } from './schemas/node-output.js';
import { tokenUsageSchema, type TokenUsage } from './schemas/node-spend.js';

/**
 * Reading the flat keys of rows written without `data.execution` (older rows, or rows of the
 * upstream shape). Each fact is read on its own: a malformed key loses that fact, not the row.
 */

type Data = Readonly<Record<string, unknown>>;

function pick<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The lifecycle a legacy row stands for, or undefined when its keys do not say enough. */
export function legacyLifecycle(status: LifecycleStatus, data: Data): Lifecycle | undefined {
  switch (status) {
    case 'started':
    case 'completed':
      return { status };
    case 'failed': {
      if (typeof data.error !== 'string') return undefined;
      const failureKind = pick(failureKindSchema, data.failure_kind);
      const providerFailure = pick(providerFailureSchema, data.provider_failure);
      return {
        status,
        error: data.error,
        ...(data.retryable === false ? { retryable: false as const } : {}),
        ...(failureKind !== undefined ? { failureKind } : {}),
        ...(providerFailure !== undefined ? { providerFailure } : {}),
      };
    }
    case 'skipped': {
      const reason = pick(skipReasonSchema, data.reason);
      if (reason === undefined) return undefined;
      const cause = pick(skipCauseSchema, data.cause) ?? causeFromExpr(reason, data.expr);
      return cause === undefined ? undefined : { status, reason, cause };
    }
    case 'suspended': {
      const point = pick(suspensionPointSchema, data.suspend_point);
      return point === undefined ? undefined : { status, point };
    }
  }
}

/** Upstream skip rows carry `reason` and `expr` but no typed cause; rebuild the ones we can. */
function causeFromExpr(reason: string, expr: unknown): SkipCause | undefined {
  if (reason === 'timeout') return { kind: 'timeout' };
  if (typeof expr !== 'string') return undefined;
  if (reason === 'when_condition') return { kind: 'condition', expr };
  if (reason === 'when_condition_parse_error') return { kind: 'condition_parse_error', expr };
  return undefined;
}

const declaredPathsSchema = z.array(outputPathSchema);
const declaredFieldsSchema = z.array(z.string());

/** Declared output paths; legacy `declared_fields` become root paths when the modern key is absent. */
export function legacyDeclaredPaths(data: Data): string[][] | undefined {
  const paths = pick(declaredPathsSchema, data.declared_output_paths);
  if (paths !== undefined) return paths;
  return pick(declaredFieldsSchema, data.declared_fields)?.map((field) => [field]);
}

/** The stored output under `node_output*` (or `prior_output*`) keys, if the row has one. */
export function legacyOutput(data: Data, prefix: 'node_output' | 'prior_output'): Output | undefined {
  const text = data[prefix];
  if (typeof text !== 'string') return undefined;
  const output: Output = { text };
  const structured = prefix === 'node_output' ? data.structured_output : data.prior_structured_output;
  if (structured !== undefined) output.structured = structured;
  if (prefix === 'node_output') {
    const declared = legacyDeclaredPaths(data);
    if (declared !== undefined) output.declaredOutputPaths = declared;
  }
  const truncated = data[`${prefix}_truncated`] === true;
  const spillPath = data[`${prefix}_spill_path`];
  const originalBytes = data[`${prefix}_original_bytes`];
  if (truncated || typeof spillPath === 'string') {
    output.persisted = {
      text,
      truncated,
      ...(typeof originalBytes === 'number' && Number.isInteger(originalBytes) && originalBytes >= 0 ? { originalBytes } : {}),
      ...(typeof spillPath === 'string' ? { spillPath } : {}),
    };
  }
  return output;
}

/** Flat `tokens`, ignoring unknown axes; a malformed value is no observation. */
const flatTokensSchema = z.object(tokenUsageSchema.shape);

export function legacyTokens(data: Data): TokenUsage | undefined {
  return pick(flatTokensSchema, data.tokens);
}

export function legacyCost(data: Data): number | undefined {
  const cost = data.cost_usd;
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
}

/** Upstream rows kept `accounting` at the top of `data`; older ones only `aggregate: true`. */
export function legacyAccounting(data: Data): Accounting {
  return pick(accountingSchema, data.accounting) ?? (data.aggregate === true ? 'aggregate' : 'node');
}
