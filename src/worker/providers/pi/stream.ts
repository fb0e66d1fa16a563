import type { ChatCliState } from '../common/chat-cli.js';
import { adapterFailure } from '../common/failure-class.js';
import { PI_GUARD_REFUSAL } from './workspace-guard.js';
import type { AdapterFailure, ProviderChunk } from '../provider-adapter.js';

/**
 * Reads `pi --mode json -p` output: a `session` header line, then the agent's events
 * (`message_update` with text and thinking deltas, `message_end`, `tool_execution_start` /
 * `_end`, `agent_end`). Pi's own usage fills what the server never sent with 0 and prices
 * tokens from its model table, so neither is read here: the relay's copy of the server's usage is.
 * A failed model call ends the turn with an assistant message whose `stopReason` is `error`.
 *
 * A tool result is `refused` when Pi did not run the call: the tool is not in the set the node's
 * level and tool lists offer (Pi answers `Tool <name> not found`), or the workspace guard blocked it.
 */
export class PiStreamState implements ChatCliState {
  sawLine = false;
  finished = false;
  sessionId: string | undefined;
  errorMessage: string | undefined;
  /** The text of the last assistant message that had any: the answer after the turn's tool calls. */
  lastText: string | undefined;
  text = '';

  answerText(): string {
    return this.lastText ?? this.text;
  }

  ownFailure(): AdapterFailure | undefined {
    if (this.errorMessage === undefined) return undefined;
    const status = /^(\d{3})\b/.exec(this.errorMessage)?.[1];
    if (status === '401' || status === '403') return adapterFailure('auth', `Pi: ${this.errorMessage}`);
    if (status === '429') return adapterFailure('rate_limited', `Pi: ${this.errorMessage}`);
    return adapterFailure('transient', `Pi: ${this.errorMessage}`);
  }

  read(line: string): ProviderChunk[] {
    let event: any;
    try {
      event = JSON.parse(line);
    } catch {
      return [];
    }
    if (!event || typeof event !== 'object') return [];
    this.sawLine = true;
    switch (event.type) {
      case 'session':
        if (typeof event.id === 'string') {
          this.sessionId = event.id;
          return [{ type: 'session', sessionId: event.id }];
        }
        return [];
      case 'message_update': {
        const e = event.assistantMessageEvent ?? {};
        if (e.type === 'text_delta' && typeof e.delta === 'string' && e.delta !== '') {
          this.text += e.delta;
          return [{ type: 'text', text: e.delta }];
        }
        if (e.type === 'thinking_delta' && typeof e.delta === 'string' && e.delta !== '') return [{ type: 'thinking', text: e.delta }];
        return [];
      }
      case 'message_end': {
        const message = event.message ?? {};
        if (message.role !== 'assistant') return [];
        if (message.stopReason === 'error' || message.stopReason === 'aborted') {
          this.errorMessage = typeof message.errorMessage === 'string' ? message.errorMessage : `the model call ended with ${message.stopReason}`;
        }
        const text = (Array.isArray(message.content) ? message.content : [])
          .filter((c: any) => c?.type === 'text' && typeof c.text === 'string')
          .map((c: any) => c.text)
          .join('');
        if (text !== '') this.lastText = text;
        return [];
      }
      case 'tool_execution_start':
        return [{ type: 'tool_call', ...(typeof event.toolCallId === 'string' ? { id: event.toolCallId } : {}), name: String(event.toolName ?? 'tool'), input: event.args ?? {} }];
      case 'tool_execution_end': {
        const content = Array.isArray(event.result?.content) ? event.result.content : [];
        const output = content.filter((c: any) => c?.type === 'text').map((c: any) => c.text).join('') || JSON.stringify(event.result ?? '');
        const refused = event.isError === true && (output === `Tool ${String(event.toolName)} not found` || output.startsWith(PI_GUARD_REFUSAL));
        return [
          {
            type: 'tool_result',
            ...(typeof event.toolCallId === 'string' ? { id: event.toolCallId } : {}),
            output,
            ...(event.isError ? { isError: true } : {}),
            ...(refused ? { refused: true } : {}),
          },
        ];
      }
      case 'agent_end':
        this.finished = true;
        return [];
      default:
        return [];
    }
  }
}
