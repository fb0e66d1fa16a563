import type { ProviderFailure, ProviderFailureClass } from '../../../records/schemas/node-lifecycle.js';
import type { AdapterFailure } from '../provider-adapter.js';
import { socketCodeOf } from '../../../shared/socket-error.js';
import { usageLimitOf } from './usage-limit.js';

/**
 * Classifies a provider's failure from what it said: the HTTP status, the error type of its
 * body, and its retry headers. One table for every adapter, so a 429 means the same thing
 * whichever provider sent it.
 */

/** Error types the Anthropic and OpenAI APIs send, and what they mean here. */
const classByErrorType: Readonly<Record<string, ProviderFailureClass>> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  invalid_api_key: 'auth',
  authentication_failed: 'auth',
  billing_error: 'quota_exhausted',
  insufficient_quota: 'quota_exhausted',
  // The ChatGPT backend (Codex signed in with a plan): the plan's usage limit, with its reset.
  usage_limit_reached: 'quota_exhausted',
  rate_limit_error: 'rate_limited',
  rate_limit_exceeded: 'rate_limited',
  rate_limit: 'rate_limited',
  overloaded_error: 'overloaded',
  api_error: 'transient',
  server_error: 'transient',
  invalid_request_error: 'misconfigured',
  invalid_request: 'misconfigured',
  not_found_error: 'misconfigured',
  model_not_found: 'misconfigured',
};

/**
 * The class of a failure from its HTTP status and error type. A type that says the credentials
 * or the quota are the problem wins (a 429 `insufficient_quota` is not a rate limit: waiting
 * does not help); otherwise the status decides, and the type only when there is no status (an
 * error event inside a stream).
 */
export function classifyFailure(status: number | undefined, errorType: string | undefined): ProviderFailureClass {
  const byType = errorType !== undefined ? classByErrorType[errorType] : undefined;
  if (byType === 'auth' || byType === 'quota_exhausted') return byType;
  if (status === undefined) return byType ?? 'transient';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'quota_exhausted';
  if (status === 429) return 'rate_limited';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408 || status === 409 || status >= 500) return 'transient';
  if (status === 400 || status === 404 || status === 422) return 'misconfigured';
  return 'unknown';
}

/** Classes that retrying cannot fix: the node fails at once and is never retried. */
export function isPermanentClass(cls: ProviderFailureClass): boolean {
  return cls === 'auth' || cls === 'quota_exhausted' || cls === 'budget_exceeded' || cls === 'misconfigured';
}

/** Reads `Retry-After` (seconds or an HTTP date) and the `*-reset` headers the APIs send. */
export function retryFacts(headers: Headers | Record<string, string | undefined> | undefined, now = Date.now()): Pick<ProviderFailure, 'retryAfterMs' | 'resetAt'> {
  if (!headers) return {};
  const get = (name: string): string | undefined =>
    headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] ?? headers[name.toLowerCase()]);
  const facts: Pick<ProviderFailure, 'retryAfterMs' | 'resetAt'> = {};
  const retryAfterMsHeader = get('retry-after-ms');
  const retryAfter = get('retry-after');
  if (retryAfterMsHeader !== undefined && Number.isFinite(Number(retryAfterMsHeader))) {
    facts.retryAfterMs = Math.max(0, Math.round(Number(retryAfterMsHeader)));
  } else if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) facts.retryAfterMs = Math.max(0, Math.round(seconds * 1000));
    else if (!Number.isNaN(Date.parse(retryAfter))) facts.retryAfterMs = Math.max(0, Date.parse(retryAfter) - now);
  }
  const reset =
    get('anthropic-ratelimit-requests-reset') ??
    get('anthropic-ratelimit-tokens-reset') ??
    get('x-ratelimit-reset-requests') ??
    get('x-ratelimit-reset-tokens');
  if (reset !== undefined) {
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) facts.resetAt = new Date(at).toISOString();
  }
  return facts;
}

/**
 * The reset instant an error body states (the ChatGPT backend's `resets_at`, epoch seconds, or
 * `resets_in_seconds`), as a fact of the failure; nothing when it states none.
 */
export function bodyResetFacts(error: unknown, now = Date.now()): Pick<ProviderFailure, 'resetAt'> {
  const body = error as { resets_at?: unknown; resets_in_seconds?: unknown } | null | undefined;
  if (typeof body?.resets_at === 'number' && body.resets_at > 0) return { resetAt: new Date(body.resets_at * 1000).toISOString() };
  if (typeof body?.resets_in_seconds === 'number' && body.resets_in_seconds >= 0) return { resetAt: new Date(now + body.resets_in_seconds * 1000).toISOString() };
  return {};
}

/** A call that got no HTTP answer (refused, reset, no route): transient, naming the address tried. */
export function connectionFailure(address: string, err: unknown): AdapterFailure {
  const why = socketCodeOf(err) ?? (err as Error)?.message ?? String(err);
  return adapterFailure('transient', `cannot connect to the provider at ${address}: ${why}. Check that the server runs and the base URL is right`);
}

/** A failure value with its evidence (the provider's own words, cut to a readable length). */
export function adapterFailure(
  cls: ProviderFailureClass,
  evidence: string,
  facts: Pick<ProviderFailure, 'retryAfterMs' | 'resetAt'> = {},
): AdapterFailure {
  const trimmed = evidence.length > 500 ? `${evidence.slice(0, 500)}…` : evidence;
  // A plan's usage limit ("5-hour limit reached ∙ resets 3pm"), whatever status carried it, is a
  // quota until its reset: no retry inside the node helps; the run may be resumed then.
  const limit = cls === 'auth' || cls === 'misconfigured' ? undefined : usageLimitOf(evidence);
  if (limit) {
    const resetAt = limit.resetAt ?? facts.resetAt;
    const { retryAfterMs: _dropped, resetAt: _replaced, ...rest } = facts;
    cls = 'quota_exhausted';
    facts = { ...rest, ...(resetAt !== undefined ? { resetAt } : {}) };
  }
  return { message: describeClass(cls, trimmed), provider: { class: cls, ...facts, evidence: trimmed } };
}

function describeClass(cls: ProviderFailureClass, evidence: string): string {
  const what: Record<ProviderFailureClass, string> = {
    auth: 'the provider refused the credentials (check the API key or login)',
    quota_exhausted: 'the provider says the account has no quota or credit left (or its usage limit is reached until its reset)',
    budget_exceeded: 'the node went over its budget',
    misconfigured: 'the provider refused the request as invalid (check the model and settings)',
    rate_limited: 'the provider is rate limiting requests',
    overloaded: 'the provider is overloaded',
    transient: 'the provider call failed',
    unknown: 'the provider call failed for an unknown reason',
  };
  return `${what[cls]}: ${evidence}`;
}
