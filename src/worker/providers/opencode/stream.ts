import { z } from 'zod';
import type { ChatCliState } from '../common/chat-cli.js';
import { adapterFailure, classifyFailure } from '../common/failure-class.js';
import { UnreadableTally } from '../common/stream-lines.js';
import type { AdapterFailure, ProviderChunk } from '../provider-adapter.js';

/**
 * Reads `opencode run --format json` output: one JSON event a line (`step_start`, `text`,
 * `reasoning`, `tool_use`, `step_finish`, `error`), each naming its `sessionID` and carrying one
 * finished part. Tokens and cost in `step_finish` are OpenCode's own (zeros where the server sent
 * nothing, a cost from its price table), so they are not read here: the relay's copy of the
 * server's usage is.
 *
 * A tool call OpenCode refused is a `tool_result` with `refused: true`: a permission rule denied
 * it, an `ask` was rejected (`opencode run` rejects every ask), or the model called a tool the
 * rules withheld (OpenCode then never offered it). A tool that ran and failed is only `isError`.
 *
 * Each event is read through its zod schema below: fields the reader does not use pass through,
 * other event types are skipped, and a line it cannot read is counted in `unreadable`
 * (common/stream-lines.ts).
 */

/** Every event may name its session. */
const sessionSchema = z.looseObject({ sessionID: z.string().nullish() });
/** A `text` or `reasoning` event: its part's text. */
const textSchema = z.looseObject({ part: z.looseObject({ text: z.string().nullish() }) });
const toolUseSchema = z.looseObject({
  part: z.looseObject({
    callID: z.string().nullish(),
    tool: z.string().nullish(),
    state: z.looseObject({ status: z.string().nullish(), input: z.unknown().optional(), output: z.unknown().optional(), error: z.unknown().optional() }).nullish(),
  }),
});
const errorSchema = z.looseObject({
  error: z
    .looseObject({
      name: z.unknown().optional(),
      data: z.looseObject({ message: z.string().nullish(), statusCode: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

/** OpenCode's words for a call a `deny` rule stopped. */
const DENIED = 'The user has specified a rule which prevents you from using this specific tool call';
/** ... for an `ask` that was rejected (with or without feedback). */
const REJECTED = 'The user rejected permission to use this specific tool call';
/** ... for a call to a tool it does not offer. */
const UNAVAILABLE = 'Model tried to call unavailable tool';

export class OpencodeStreamState implements ChatCliState {
  sawLine = false;
  /** A step finished (the model answered). */
  finished = false;
  sessionId: string | undefined;
  /** The `error` event's message and HTTP status, when the CLI reported one. */
  errorMessage: string | undefined;
  errorStatus: number | undefined;
  private stepText = '';
  /** The text of the last step that had any: the answer after the turn's tool calls. */
  lastText: string | undefined;
  text = '';
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

  /** `withheld(tool)`: the attempt's rules deny the tool outright (it was never offered). */
  constructor(private readonly withheld: (tool: string) => boolean = () => false) {}

  answerText(): string {
    return this.lastText ?? this.text;
  }

  ownFailure(): AdapterFailure | undefined {
    if (this.errorMessage === undefined) return undefined;
    return adapterFailure(this.errorStatus !== undefined ? classifyFailure(this.errorStatus, undefined) : 'unknown', `OpenCode: ${this.errorMessage}`);
  }

  private isRefusal(tool: string, error: string): boolean {
    if (error.startsWith(DENIED) || error.startsWith(REJECTED)) return true;
    return error.startsWith(UNAVAILABLE) && this.withheld(tool);
  }

  read(line: string): ProviderChunk[] {
    const event = this.unreadable.event(line);
    if (event === undefined) return [];
    this.sawLine = true;
    const what = `"${event.type}" event`;
    const out: ProviderChunk[] = [];
    const session = this.unreadable.read(sessionSchema, event, line, what);
    if (typeof session?.sessionID === 'string' && this.sessionId === undefined) {
      this.sessionId = session.sessionID;
      out.push({ type: 'session', sessionId: session.sessionID });
    }
    switch (event.type) {
      case 'step_start':
        this.stepText = '';
        break;
      case 'text': {
        const text = this.unreadable.read(textSchema, event, line, what)?.part.text;
        if (typeof text === 'string' && text !== '') {
          this.stepText += text;
          this.text += text;
          this.lastText = this.stepText;
          out.push({ type: 'text', text });
        }
        break;
      }
      case 'reasoning': {
        const text = this.unreadable.read(textSchema, event, line, what)?.part.text;
        if (typeof text === 'string' && text !== '') out.push({ type: 'thinking', text });
        break;
      }
      case 'tool_use': {
        const part = this.unreadable.read(toolUseSchema, event, line, what)?.part;
        if (!part) break;
        const state = part.state ?? { status: undefined, input: undefined, output: undefined, error: undefined };
        const id = typeof part.callID === 'string' ? part.callID : undefined;
        const name = typeof part.tool === 'string' ? part.tool : 'tool';
        out.push({ type: 'tool_call', ...(id ? { id } : {}), name, input: state.input ?? {} });
        if (state.status === 'completed') {
          const output = typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? '');
          out.push({ type: 'tool_result', ...(id ? { id } : {}), output });
        } else if (state.status === 'error') {
          const output = typeof state.error === 'string' ? state.error : JSON.stringify(state.error ?? '');
          out.push({ type: 'tool_result', ...(id ? { id } : {}), output, isError: true, ...(this.isRefusal(name, output) ? { refused: true } : {}) });
        }
        break;
      }
      case 'step_finish':
        this.finished = true;
        break;
      case 'error': {
        const error = this.unreadable.read(errorSchema, event, line, what)?.error;
        const data = error?.data ?? {};
        this.errorMessage = typeof data.message === 'string' ? data.message : String(error?.name ?? 'error');
        if (typeof data.statusCode === 'number') this.errorStatus = data.statusCode;
        break;
      }
    }
    return out;
  }
}
