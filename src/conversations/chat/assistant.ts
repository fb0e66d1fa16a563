/**
 * The default assistant as a chat turn sees it: whether it can be asked, and one call that
 * streams its answer to the conversation and returns it whole. The supervisor provides it
 * (the call runs in a worker thread through the provider adapters); a chat without it answers
 * plain messages with the set-up text.
 */

export type AssistantStatus =
  | { ready: true; provider: string; model?: string }
  | {
      ready: false;
      provider: string;
      /** `not_configured`: no credential or server; `no_adapter` / `unknown_provider`: a default assistant that cannot run. */
      reason: 'not_configured' | 'no_adapter' | 'unknown_provider';
      detail?: string;
    };

export interface AssistantCall {
  /** The conversation's platform id: where the streamed `text` events go. */
  conversationId: string;
  /** Names this call (the chat turn's job id). */
  turnId: string;
  prompt: string;
  systemPrompt: string;
  /** The conversation's project directory, where a CLI assistant runs; none: the service home. */
  cwd?: string | undefined;
}

/** The answer; `streamed` text is already on the stream except its `tail`. */
export interface AssistantReply {
  status: 'completed' | 'failed';
  text: string;
  streamed: boolean;
  tail: string;
  error?: string | undefined;
  /** A provider failure class (`auth`, `rate_limited` …) or `timeout` (a watchdog stopped the call). */
  failureClass?: string | undefined;
}

/** The assistant as one turn uses it. */
export interface TurnAssistant {
  readonly status: AssistantStatus;
  ask(call: AssistantCall): Promise<AssistantReply>;
  /** Strings that must never appear in a message, an event or a log (the credential). */
  readonly secrets: readonly string[];
}

export interface ChatAssistant {
  /**
   * The assistant for a turn: the install's default assistant, or, for a turn with a user
   * (`X-Service-User`), that user's personal default (provider and chat model) and connected
   * credential, resolved when the turn starts.
   */
  forTurn(userId: string | undefined): Promise<TurnAssistant>;
}
