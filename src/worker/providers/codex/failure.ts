import { adapterFailure, bodyResetFacts, classifyFailure, retryFacts } from '../common/failure-class.js';
import type { CodexStreamState } from './stream.js';
import type { RelayedAnswer } from '../common/http-relay.js';
import type { AdapterFailure } from '../provider-adapter.js';

/**
 * Why a Codex attempt failed, if it did: first what the server said (the relay saw each answer's
 * status, `Retry-After` and error body), then the CLI's own words (`turn.failed`, an `error`
 * line: a failure inside a 200 stream such as `response.failed`), then how the process ended.
 */
export function codexFailure(state: CodexStreamState, answers: readonly RelayedAnswer[], code: number | null, stderr: string): AdapterFailure | undefined {
  if (state.finished) return undefined;
  const refused = [...answers].reverse().find((a) => a.status < 200 || a.status >= 300);
  if (refused !== undefined) {
    const error = errorOf(refused.errorBody);
    const type = error.code ?? error.type;
    const evidence = [`HTTP ${refused.status}`, type, error.message ?? state.errorMessage].filter(Boolean).join(' ');
    return adapterFailure(classifyFailure(refused.status, type), evidence, { ...retryFacts(refused.headers), ...error.resets });
  }
  if (state.errorMessage !== undefined) return fromMessage(state.errorMessage);
  const tail = stderr.trim().slice(-500);
  // `--strict-config`: this Codex does not take a key of the attempt's config (a renamed setting).
  const config = /Error loading config\.toml[^\n]*/.exec(stderr)?.[0];
  if (!state.sawLine && config !== undefined) return adapterFailure('misconfigured', `Codex refused its configuration: ${config}`);
  if (!state.sawLine && code === 0) return adapterFailure('transient', 'Codex ended without a single event');
  const how = code === null ? 'was killed' : `exited with code ${code}`;
  return adapterFailure(state.sawLine ? 'transient' : 'unknown', `Codex ${how} before the turn completed${tail ? `: ${tail}` : ''}`);
}

function errorOf(body: string | undefined): { type?: string; code?: string; message?: string; resets?: ReturnType<typeof bodyResetFacts> } {
  try {
    const error = JSON.parse(body ?? '')?.error;
    return {
      resets: bodyResetFacts(error),
      ...(typeof error?.type === 'string' ? { type: error.type } : {}),
      ...(typeof error?.code === 'string' ? { code: error.code } : {}),
      ...(typeof error?.message === 'string' ? { message: error.message } : {}),
    };
  } catch {
    return body ? { message: body.slice(0, 300) } : {};
  }
}

/** The CLI's message for a failure the server reported inside its stream (`response.failed`). */
function fromMessage(message: string): AdapterFailure {
  const status = /\b(?:status:?|status) (\d{3})\b/i.exec(message)?.[1];
  const seconds = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  const facts = seconds ? { retryAfterMs: Math.round(Number(seconds[1]) * (seconds[2] === 'ms' ? 1 : 1000)) } : {};
  if (/rate limit/i.test(message)) return adapterFailure('rate_limited', message, facts);
  if (/quota|billing|credit/i.test(message)) return adapterFailure('quota_exhausted', message);
  if (/unauthorized|invalid api key|incorrect api key/i.test(message)) return adapterFailure('auth', message);
  if (/overloaded|high demand/i.test(message)) return adapterFailure('overloaded', message, facts);
  if (status !== undefined) return adapterFailure(classifyFailure(Number(status), undefined), message, facts);
  return adapterFailure('transient', message, facts);
}
