import { adapterFailure, bodyResetFacts, classifyFailure, retryFacts } from './failure-class.js';
import type { RelayedAnswer } from './http-relay.js';
import type { AdapterFailure } from '../provider-adapter.js';

/**
 * A model call an OpenAI-style server refused, classified from what the relay saw: the HTTP
 * status, the body's `error.code` / `error.type` and `Retry-After`.
 */
export function openAiRefusal(answer: RelayedAnswer): AdapterFailure {
  let type: string | undefined;
  let message: string | undefined;
  let resets = {};
  try {
    const error = JSON.parse(answer.errorBody ?? '')?.error;
    resets = bodyResetFacts(error);
    if (typeof error?.code === 'string') type = error.code;
    else if (typeof error?.type === 'string') type = error.type;
    if (typeof error?.message === 'string') message = error.message;
  } catch {
    message = answer.errorBody?.slice(0, 300);
  }
  const evidence = [`HTTP ${answer.status}`, type, message].filter(Boolean).join(' ');
  return adapterFailure(classifyFailure(answer.status, type), evidence, { ...retryFacts(answer.headers), ...resets });
}

/** A Chat Completions call (not a helper request such as a model list). */
export function isChatCall(answer: RelayedAnswer): boolean {
  return /\/chat\/completions\b/.test(answer.path);
}
