import { SecretMask } from '../../shared/secret-mask.js';

/**
 * The chat answer when the default assistant's call failed: what failed (the failure class the
 * adapters produce, with the provider's own words) and what to do about it. The credential is
 * removed from the provider's words before they are shown.
 */

const whatToDo: Readonly<Record<string, string>> = {
  auth: 'Check the API key (`ANTHROPIC_API_KEY` / `OPENAI_API_KEY`, or `assistants.<id>.apiKey` in `$CAIRN_HOME/config.yaml`) or the CLI\'s login, then restart `cairn serve`.',
  quota_exhausted: 'Add credit or quota to the provider account, or configure another default assistant.',
  budget_exceeded: 'Raise the budget, or send a shorter message.',
  misconfigured: 'Check the model (`assistants.<id>.model`) and the server address (`assistants.<id>.baseUrl`) in `$CAIRN_HOME/config.yaml`.',
  rate_limited: 'The provider is limiting requests: wait a moment, then send the message again.',
  overloaded: 'The provider is overloaded: send the message again in a little while.',
  timeout: 'Check that the provider is reachable, then send the message again (`CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS` raises the first-event watchdog).',
  transient: 'Send the message again; if it keeps failing, check the provider\'s status and the server address.',
  unknown: 'Send the message again; if it keeps failing, check the provider\'s status and the operator log.',
};

const label: Readonly<Record<string, string>> = {
  auth: 'authentication failed',
  quota_exhausted: 'no quota left',
  budget_exceeded: 'budget exceeded',
  misconfigured: 'request refused as misconfigured',
  rate_limited: 'rate limited',
  overloaded: 'provider overloaded',
  timeout: 'timed out',
  transient: 'the call failed',
  unknown: 'the call failed',
};

/** Replaces every secret in a text (keys never reach a message, an event or a log). */
export function redact(text: string, secrets: readonly string[]): string {
  return new SecretMask(secrets).text(text);
}

export function assistantFailureText(provider: string, failureClass: string | undefined, error: string | undefined, secrets: readonly string[]): string {
  const cls = failureClass !== undefined && failureClass in whatToDo ? failureClass : 'unknown';
  return [
    `The assistant (${provider}) could not answer: ${label[cls]} (${cls}).`,
    ...(error ? ['', redact(error, secrets)] : []),
    '',
    `What to do: ${whatToDo[cls]}`,
  ].join('\n');
}
