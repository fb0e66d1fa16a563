import { z } from 'zod';
import type { Measured, Unavailable } from './schemas/measured-value.js';
import { tokenUsageSchema, type Spend, type TokenUsage } from './schemas/node-spend.js';
import type { MeasurementSupport, ProviderCapabilities } from '../shared/providers/registry.js';

/** What a provider declares it reports, per measurement (`capabilities.reports` of the registry). */
export type MeasurementReports = ProviderCapabilities['reports'];
import { provided, unavailable } from './measured.js';

/**
 * Accounting rules 1 and 2. A record's spend starts from what the provider declares it can
 * report and finishes from what it did report; nothing is estimated and absence never becomes 0.
 */

/** Spend of a node that made no provider call (exec, gate, halt, wait, ...). */
export function notApplicableSpend(): Spend {
  const none = unavailable('not_applicable');
  return { tokens: none, costUsd: none, stopReason: none, numTurns: none };
}

/** Availability of one measurement before any value arrives (accounting rule 1). */
export function initialAvailability(support: MeasurementSupport): Unavailable {
  switch (support) {
    case 'supported':
      return unavailable('not_reported');
    case 'unsupported':
      return unavailable('unsupported');
    case 'undeclared':
      return unavailable('unknown');
  }
}

/** Spend at the start of an attempt that will call a provider declaring these `reports`. */
export function initialSpend(reports: MeasurementReports): Spend {
  return {
    tokens: initialAvailability(reports.tokens),
    costUsd: initialAvailability(reports.costUsd),
    stopReason: initialAvailability(reports.stopReason),
    numTurns: initialAvailability(reports.numTurns),
  };
}

/** The binding's resolved model before the provider names it (the fifth measured value). */
export function initialResolvedModel(reports: MeasurementReports): Measured<string> {
  return initialAvailability(reports.resolvedModel);
}

/**
 * What a provider reported at the end of an attempt, as it arrived (untrusted). An omitted
 * key means "no observation"; `tokensUnknown: true` is the provider's explicit signal that at
 * least one paid interval cannot be counted.
 */
export interface SpendObservations {
  tokens?: unknown;
  costUsd?: unknown;
  /** The provider says its cost misses some nested usage. */
  costPartial?: boolean;
  stopReason?: unknown;
  numTurns?: unknown;
  tokensUnknown?: boolean;
}

/**
 * Spend at the end of an attempt: observations replace availability, omitted ones keep it,
 * rejected or non-finite observations become `invalid`, and `tokensUnknown` makes tokens
 * `incomplete` whatever else arrived.
 */
export function finishSpend(initial: Spend, observations: SpendObservations): Spend {
  return {
    tokens: observations.tokensUnknown === true ? unavailable('incomplete') : finishTokens(initial.tokens, observations.tokens),
    costUsd: finishCost(initial.costUsd, observations),
    stopReason: finishValue(initial.stopReason, observations.stopReason, isString),
    numTurns: finishValue(initial.numTurns, observations.numTurns, isAmount),
  };
}

/** The resolved model once the provider has (or has not) named it. */
export function finishResolvedModel(initial: Measured<string>, observed: unknown): Measured<string> {
  return finishValue(initial, observed, (v): v is string => typeof v === 'string' && v.length > 0);
}

/** Observed tokens: the record's token shape, ignoring keys an adapter passed through. */
const observedTokensSchema = z.object(tokenUsageSchema.shape);

/** An observed token report in the record's shape; undefined when it is malformed (recorded as `invalid`). */
export function observedTokens(observed: unknown): TokenUsage | undefined {
  const parsed = observedTokensSchema.safeParse(normalizeTokens(observed));
  return parsed.success ? parsed.data : undefined;
}

function finishTokens(initial: Spend['tokens'], observed: unknown): Spend['tokens'] {
  if (observed === undefined) return initial;
  const tokens = observedTokens(observed);
  return tokens !== undefined ? provided<TokenUsage>(tokens) : unavailable('invalid');
}

function finishCost(initial: Spend['costUsd'], observations: SpendObservations): Spend['costUsd'] {
  const observed = observations.costUsd;
  if (observed === undefined) return initial;
  if (!isAmount(observed)) return unavailable('invalid');
  return observations.costPartial === true ? { source: 'provider', value: observed, partial: true } : provided(observed);
}

function finishValue<T>(initial: Measured<T>, observed: unknown, accept: (v: unknown) => v is T): Measured<T> {
  if (observed === undefined) return initial;
  return accept(observed) ? provided(observed) : unavailable('invalid');
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** A finite, non-negative number: a valid cost or turn count. */
export function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Adapters often send `{ cacheRead: undefined }` or `cachePartial: false`; both mean the
 * flag or axis is absent, not that the observation is malformed.
 */
function normalizeTokens(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || (key === 'cachePartial' && v === false)) continue;
    out[key] = v;
  }
  return out;
}
