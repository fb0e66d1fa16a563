import { z } from 'zod';
import type { ChatCliState } from '../common/chat-cli.js';
import { adapterFailure, classifyFailure } from '../common/failure-class.js';
import { UnreadableTally } from '../common/stream-lines.js';
import type { AdapterFailure, ProviderChunk } from '../provider-adapter.js';

/**
 * Reads `copilot --output-format json` output: one session event a line (`assistant.message_delta`,
 * `assistant.message`, tool execution events, `model.call_failure`), ending with a `result` line
 * that names the session and the exit code. Copilot reports no tokens of a BYOK provider, so the
 * relay's copy of the server's usage is read instead.
 *
 * A tool result is `refused` when Copilot did not run the call: a permission rule or its path
 * verification denied it (error code `denied`), or the tool is not among those the node's tool
 * lists offer (`Tool '<name>' does not exist.`). A tool that ran and failed is an error only.
 *
 * Each event is read through its zod schema below (the fields of its `data`): fields the reader
 * does not use pass through, other event types (Copilot writes many: `session.*`,
 * `assistant.turn_*`, `model.call_*`, `tool.execution_partial_result`, ...) are skipped, and a
 * line it cannot read is counted in `unreadable` (common/stream-lines.ts).
 */

/** An event whose fields sit in its `data`. */
const withData = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ data: z.looseObject(shape) });
/** `assistant.message_delta`, `assistant.reasoning_delta`. */
const deltaSchema = withData({ deltaContent: z.string() });
const messageSchema = withData({ content: z.string().nullish() });
const toolStartSchema = withData({ toolCallId: z.string().nullish(), toolName: z.string().nullish(), arguments: z.unknown().optional() });
const toolCompleteSchema = withData({
  toolCallId: z.string().nullish(),
  success: z.boolean().nullish(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
/** `model.call_failure`, `session.error`. */
const failureSchema = withData({ errorMessage: z.string().nullish(), message: z.string().nullish(), statusCode: z.number().nullish() });
/** The last line: the session and the exit code. */
const resultSchema = z.looseObject({ sessionId: z.string().nullish(), exitCode: z.number().nullish() });
export class CopilotStreamState implements ChatCliState {
  sawLine = false;
  finished = false;
  sessionId: string | undefined;
  errorMessage: string | undefined;
  errorStatus: number | undefined;
  lastText: string | undefined;
  text = '';
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

  answerText(): string {
    return this.lastText ?? this.text;
  }

  ownFailure(): AdapterFailure | undefined {
    if (this.errorMessage === undefined || this.finished) return undefined;
    return adapterFailure(this.errorStatus !== undefined ? classifyFailure(this.errorStatus, undefined) : 'unknown', `Copilot: ${this.errorMessage}`);
  }

  read(line: string): ProviderChunk[] {
    const event = this.unreadable.event(line);
    if (event === undefined) return [];
    this.sawLine = true;
    const what = `"${event.type}" event`;
    switch (event.type) {
      case 'assistant.message_delta': {
        const text = this.unreadable.read(deltaSchema, event, line, what)?.data.deltaContent;
        if (text === undefined || text === '') return [];
        this.text += text;
        return [{ type: 'text', text }];
      }
      case 'assistant.reasoning_delta': {
        const text = this.unreadable.read(deltaSchema, event, line, what)?.data.deltaContent;
        return text !== undefined && text !== '' ? [{ type: 'thinking', text }] : [];
      }
      case 'assistant.message': {
        const content = this.unreadable.read(messageSchema, event, line, what)?.data.content;
        if (typeof content === 'string' && content !== '') this.lastText = content;
        return [];
      }
      case 'tool.execution_start': {
        const data = this.unreadable.read(toolStartSchema, event, line, what)?.data;
        if (!data) return [];
        return [{ type: 'tool_call', ...(typeof data.toolCallId === 'string' ? { id: data.toolCallId } : {}), name: data.toolName ?? 'tool', input: data.arguments ?? {} }];
      }
      case 'tool.execution_complete': {
        const data = this.unreadable.read(toolCompleteSchema, event, line, what)?.data;
        if (!data) return [];
        const failed = data.success === false;
        return [
          {
            type: 'tool_result',
            ...(typeof data.toolCallId === 'string' ? { id: data.toolCallId } : {}),
            output: outputOf(data.result ?? data.error ?? {}),
            ...(failed ? { isError: true } : {}),
            ...(failed && isRefusal(data.error) ? { refused: true } : {}),
          },
        ];
      }
      case 'model.call_failure':
      case 'session.error': {
        const data = this.unreadable.read(failureSchema, event, line, what)?.data;
        // Failed even when its line is odd: the message falls back to a plain one.
        this.errorMessage = data?.errorMessage ?? data?.message ?? 'the model call failed';
        if (typeof data?.statusCode === 'number') this.errorStatus = data.statusCode;
        return [];
      }
      case 'result': {
        const msg = this.unreadable.read(resultSchema, event, line, what);
        const out: ProviderChunk[] = [];
        if (typeof msg?.sessionId === 'string') {
          this.sessionId = msg.sessionId;
          out.push({ type: 'session', sessionId: msg.sessionId });
        }
        this.finished = msg?.exitCode === 0;
        return out;
      }
      default:
        return [];
    }
  }
}

/**
 * A tool's result (or error) as text: itself when a string, else its `content` or `message`
 * when a string, else its JSON. Free-form by nature, so every shape reads.
 */
function outputOf(result: unknown): string {
  if (typeof result === 'string') return result;
  const { content, message } = result as { content?: unknown; message?: unknown };
  if (typeof content === 'string') return content;
  if (typeof message === 'string') return message;
  return JSON.stringify(result);
}

function isRefusal(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'denied' || (code === 'failure' && typeof message === 'string' && /^Tool '[^']+' does not exist\./.test(message));
}
