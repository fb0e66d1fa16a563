import { z } from 'zod';
import type { ChatCliState } from '../common/chat-cli.js';
import { adapterFailure } from '../common/failure-class.js';
import { UnreadableTally, type StreamEvent } from '../common/stream-lines.js';
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
 *
 * Each event is read through its zod schema below: fields the reader does not use pass through,
 * other event types (`agent_start`, `turn_start`, `message_start`, `tool_execution_update`, ...)
 * are skipped, and a line it cannot read is counted in `unreadable` (common/stream-lines.ts).
 */

const sessionSchema = z.looseObject({ id: z.string() });
/** A content block: `text`, `thinking`, `toolCall`, `image`. */
const blockSchema = z.looseObject({ type: z.string() });
const textBlockSchema = z.looseObject({ text: z.string() });
const updateSchema = z.looseObject({ assistantMessageEvent: blockSchema });
/** A `text_delta` or `thinking_delta` update. */
const deltaSchema = z.looseObject({ delta: z.string() });
/** Any message's role (a user's content may be a plain string: only an assistant's is read). */
const messageEndSchema = z.looseObject({ message: z.looseObject({ role: z.string() }) });
const assistantSchema = z.looseObject({
  content: z.array(blockSchema).nullish(),
  stopReason: z.string().nullish(),
  errorMessage: z.string().nullish(),
});
const toolStartSchema = z.looseObject({ toolCallId: z.string().nullish(), toolName: z.string().nullish(), args: z.unknown().optional() });
const toolEndSchema = z.looseObject({
  toolCallId: z.string().nullish(),
  toolName: z.string().nullish(),
  isError: z.boolean().nullish(),
  result: z.unknown().optional(),
});
const toolResultSchema = z.looseObject({ content: z.array(blockSchema) });
export class PiStreamState implements ChatCliState {
  sawLine = false;
  finished = false;
  sessionId: string | undefined;
  errorMessage: string | undefined;
  /** The text of the last assistant message that had any: the answer after the turn's tool calls. */
  lastText: string | undefined;
  text = '';
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

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
    const event = this.unreadable.event(line);
    if (event === undefined) return [];
    this.sawLine = true;
    const what = `"${event.type}" event`;
    switch (event.type) {
      case 'session': {
        const msg = this.unreadable.read(sessionSchema, event, line, what);
        if (!msg) return [];
        this.sessionId = msg.id;
        return [{ type: 'session', sessionId: msg.id }];
      }
      case 'message_update':
        return this.readUpdate(event, line, what);
      case 'message_end': {
        const message = this.unreadable.read(messageEndSchema, event, line, what)?.message;
        if (message?.role !== 'assistant') return [];
        const reply = this.unreadable.read(assistantSchema, message, line, `${what}'s assistant message`);
        if (!reply) return [];
        if (reply.stopReason === 'error' || reply.stopReason === 'aborted') {
          this.errorMessage = reply.errorMessage ?? `the model call ended with ${reply.stopReason}`;
        }
        const text = this.textOf(reply.content ?? [], line, `${what}'s text block`);
        if (text !== '') this.lastText = text;
        return [];
      }
      case 'tool_execution_start': {
        const msg = this.unreadable.read(toolStartSchema, event, line, what);
        if (!msg) return [];
        return [{ type: 'tool_call', ...(typeof msg.toolCallId === 'string' ? { id: msg.toolCallId } : {}), name: msg.toolName ?? 'tool', input: msg.args ?? {} }];
      }
      case 'tool_execution_end': {
        const msg = this.unreadable.read(toolEndSchema, event, line, what);
        if (!msg) return [];
        const output = this.toolOutput(msg.result, line, what);
        const refused = msg.isError === true && (output === `Tool ${String(msg.toolName)} not found` || output.startsWith(PI_GUARD_REFUSAL));
        return [
          {
            type: 'tool_result',
            ...(typeof msg.toolCallId === 'string' ? { id: msg.toolCallId } : {}),
            output,
            ...(msg.isError ? { isError: true } : {}),
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

  /** A text or thinking delta of the assistant's message (its other updates are skipped). */
  private readUpdate(event: StreamEvent, line: string, what: string): ProviderChunk[] {
    const update = this.unreadable.read(updateSchema, event, line, what)?.assistantMessageEvent;
    if (update?.type !== 'text_delta' && update?.type !== 'thinking_delta') return [];
    const delta = this.unreadable.read(deltaSchema, update, line, `${what}'s ${update.type}`)?.delta;
    if (delta === undefined || delta === '') return [];
    if (update.type === 'thinking_delta') return [{ type: 'thinking', text: delta }];
    this.text += delta;
    return [{ type: 'text', text: delta }];
  }

  /** The text blocks of a message's content, joined (other blocks, such as tool calls, skipped). */
  private textOf(content: readonly { type: string }[], line: string, what: string): string {
    return content
      .filter((block) => block.type === 'text')
      .map((block) => this.unreadable.read(textBlockSchema, block, line, what)?.text ?? '')
      .join('');
  }

  /** A tool's result as text: its text blocks, else (none, or content of another shape) its JSON. */
  private toolOutput(result: unknown, line: string, what: string): string {
    const content = result == null ? undefined : this.unreadable.read(toolResultSchema, result, line, `${what}'s result`)?.content;
    return (content ? this.textOf(content, line, `${what}'s text block`) : '') || JSON.stringify(result ?? '');
  }
}
