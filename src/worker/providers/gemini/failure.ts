import { adapterFailure, classifyFailure, retryFacts } from '../common/failure-class.js';
import type { GeminiStreamState } from './stream.js';
import type { RelayedAnswer } from '../common/http-relay.js';
import type { AdapterFailure } from '../provider-adapter.js';

/**
 * Why a Gemini CLI attempt failed: first a refused model call the relay saw (its HTTP status,
 * the Google API error `status` such as UNAUTHENTICATED or RESOURCE_EXHAUSTED, and
 * `Retry-After`), then the CLI's error result, then how the process ended.
 */

/** A model call (not a helper request such as a token count). */
export function isModelCall(answer: RelayedAnswer): boolean {
  return /:(stream)?generateContent\b/i.test(answer.path);
}

/** Google API error statuses, in the failure table's words. */
const typeByGoogleStatus: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: 'authentication_error',
  PERMISSION_DENIED: 'permission_error',
  INVALID_ARGUMENT: 'invalid_request_error',
  NOT_FOUND: 'not_found_error',
  UNAVAILABLE: 'overloaded_error',
  INTERNAL: 'api_error',
};

export function refusedFailure(answer: RelayedAnswer): AdapterFailure {
  let status: string | undefined;
  let message: string | undefined;
  try {
    const error = JSON.parse(answer.errorBody ?? '')?.error ?? JSON.parse(answer.errorBody ?? '')?.[0]?.error;
    if (typeof error?.status === 'string') status = error.status;
    if (typeof error?.message === 'string') message = error.message;
  } catch {
    message = answer.errorBody?.slice(0, 300);
  }
  const evidence = [`HTTP ${answer.status}`, status, message].filter(Boolean).join(' ');
  return adapterFailure(classifyFailure(answer.status, status ? typeByGoogleStatus[status] : undefined), evidence, retryFacts(answer.headers));
}

export function geminiExitFailure(state: GeminiStreamState, code: number | null, stderr: string): AdapterFailure | undefined {
  if (state.finished && state.resultError === undefined) return undefined;
  if (state.resultError !== undefined) {
    const status = /"code":\s*(\d{3})/.exec(state.resultError)?.[1];
    return adapterFailure(status ? classifyFailure(Number(status), undefined) : 'unknown', state.resultError);
  }
  const tail = stderr.trim().slice(-500);
  if (!state.sawLine && code === 0) return adapterFailure('transient', `the Gemini CLI ended without a single event${tail ? `: ${tail}` : ''}`);
  const how = code === null ? 'was killed' : `exited with code ${code}`;
  return adapterFailure(state.sawLine ? 'transient' : 'unknown', `the Gemini CLI ${how} before its result${tail ? `: ${tail}` : ''}`);
}
