import type { ChatCliState } from '../common/chat-cli.js';
import { adapterFailure, classifyFailure } from '../common/failure-class.js';
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
 */
export class CopilotStreamState implements ChatCliState {
  sawLine = false;
  finished = false;
  sessionId: string | undefined;
  errorMessage: string | undefined;
  errorStatus: number | undefined;
  lastText: string | undefined;
  text = '';

  answerText(): string {
    return this.lastText ?? this.text;
  }

  ownFailure(): AdapterFailure | undefined {
    if (this.errorMessage === undefined || this.finished) return undefined;
    return adapterFailure(this.errorStatus !== undefined ? classifyFailure(this.errorStatus, undefined) : 'unknown', `Copilot: ${this.errorMessage}`);
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
    const data = event.data ?? {};
    switch (event.type) {
      case 'assistant.message_delta':
        if (typeof data.deltaContent === 'string' && data.deltaContent !== '') {
          this.text += data.deltaContent;
          return [{ type: 'text', text: data.deltaContent }];
        }
        return [];
      case 'assistant.reasoning_delta':
        return typeof data.deltaContent === 'string' && data.deltaContent !== '' ? [{ type: 'thinking', text: data.deltaContent }] : [];
      case 'assistant.message':
        if (typeof data.content === 'string' && data.content !== '') this.lastText = data.content;
        return [];
      case 'tool.execution_start':
        return [{ type: 'tool_call', ...(typeof data.toolCallId === 'string' ? { id: data.toolCallId } : {}), name: String(data.toolName ?? 'tool'), input: data.arguments ?? {} }];
      case 'tool.execution_complete': {
        const result = data.result ?? data.error ?? {};
        const output = typeof result === 'string' ? result : typeof result.content === 'string' ? result.content : typeof result.message === 'string' ? result.message : JSON.stringify(result);
        return [
          {
            type: 'tool_result',
            ...(typeof data.toolCallId === 'string' ? { id: data.toolCallId } : {}),
            output,
            ...(data.success === false ? { isError: true } : {}),
            ...(data.success === false && isRefusal(data.error) ? { refused: true } : {}),
          },
        ];
      }
      case 'model.call_failure':
      case 'session.error':
        this.errorMessage = typeof data.errorMessage === 'string' ? data.errorMessage : typeof data.message === 'string' ? data.message : 'the model call failed';
        if (typeof data.statusCode === 'number') this.errorStatus = data.statusCode;
        return [];
      case 'result': {
        const out: ProviderChunk[] = [];
        if (typeof event.sessionId === 'string') {
          this.sessionId = event.sessionId;
          out.push({ type: 'session', sessionId: event.sessionId });
        }
        this.finished = event.exitCode === 0;
        return out;
      }
      default:
        return [];
    }
  }
}

function isRefusal(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'denied' || (code === 'failure' && typeof message === 'string' && /^Tool '[^']+' does not exist\./.test(message));
}
