import { z } from 'zod';
import type { SpendObservations } from '../../../records/spend.js';
import { UnreadableTally } from '../common/stream-lines.js';
import type { ProviderChunk } from '../provider-adapter.js';

/**
 * The Codex CLI's `codex exec --json` lines (JSONL on stdout), read one at a time into chunks and
 * the final facts. Pure: the process side is in adapter.ts.
 *
 * Lines it reads: `thread.started` (the session id), `item.completed` (`agent_message` text,
 * `reasoning`; an `error` item is a warning of the CLI's), `turn.completed` (usage) and
 * `turn.failed` / `error` (the CLI's words for a failed call). Tool items are left to the session's
 * rollout (rollout.ts): this stream leaves refused calls out.
 *
 * Each is read through its zod schema below: fields the reader does not use pass through, other
 * event and item types are skipped, and a line it cannot read is counted in `unreadable`
 * (common/stream-lines.ts).
 */

const threadStartedSchema = z.looseObject({ thread_id: z.string() });
const itemCompletedSchema = z.looseObject({ item: z.looseObject({ type: z.string() }) });
/** An `agent_message` or `reasoning` item. */
const textItemSchema = z.looseObject({ text: z.string() });
const usageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cached_input_tokens: z.number().nullish(),
});
const turnCompletedSchema = z.looseObject({ usage: usageSchema.nullish() });
const turnFailedSchema = z.looseObject({ error: z.looseObject({ message: z.string().nullish() }).nullish() });
const errorSchema = z.looseObject({ message: z.string().nullish() });

export class CodexStreamState {
  /** Every agent message, joined. */
  text = '';
  /** The last agent message: the turn's final answer. */
  lastMessage: string | undefined;
  sessionId: string | undefined;
  observations: SpendObservations = {};
  /** `turn.completed` arrived. */
  finished = false;
  /** The CLI's message for a failed turn (`turn.failed`, else the last `error` line). */
  errorMessage: string | undefined;
  sawLine = false;
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

  read(line: string): ProviderChunk[] {
    const event = this.unreadable.event(line);
    if (event === undefined) return [];
    this.sawLine = true;
    const what = `"${event.type}" event`;
    switch (event.type) {
      case 'thread.started': {
        const msg = this.unreadable.read(threadStartedSchema, event, line, what);
        if (!msg) return [];
        this.sessionId = msg.thread_id;
        return [{ type: 'session', sessionId: msg.thread_id }];
      }
      case 'item.completed': {
        const msg = this.unreadable.read(itemCompletedSchema, event, line, what);
        return msg ? this.readCompleted(msg.item, line) : [];
      }
      case 'turn.completed': {
        const msg = this.unreadable.read(turnCompletedSchema, event, line, what);
        if (!msg) return [];
        this.finished = true;
        if (msg.usage !== undefined) this.observations.tokens = tokensOf(msg.usage);
        return [];
      }
      case 'turn.failed': {
        const msg = this.unreadable.read(turnFailedSchema, event, line, what);
        this.errorMessage = msg?.error?.message ?? 'the turn failed';
        return [];
      }
      case 'error': {
        const msg = this.unreadable.read(errorSchema, event, line, what);
        if (typeof msg?.message === 'string') this.errorMessage ??= msg.message;
        return [];
      }
      default:
        return [];
    }
  }

  private readCompleted(item: z.infer<typeof itemCompletedSchema>['item'], line: string): ProviderChunk[] {
    if (item.type !== 'agent_message' && item.type !== 'reasoning') return [];
    const read = this.unreadable.read(textItemSchema, item, line, `"${item.type}" item`);
    if (!read) return [];
    if (item.type === 'reasoning') return [{ type: 'thinking', text: read.text }];
    this.text += read.text;
    this.lastMessage = read.text;
    return [{ type: 'text', text: read.text }];
  }
}

/**
 * Codex's turn usage, as the Responses API counted it: `input_tokens` includes the cached part,
 * reported as `cacheRead`. A count the CLI leaves out stays out (never 0).
 */
function tokensOf(usage: z.infer<typeof usageSchema> | null): unknown {
  if (!usage) return usage;
  const optional = (key: string, value: unknown) => (value !== undefined ? { [key]: value } : {});
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    ...optional('cacheRead', usage.cached_input_tokens),
  };
}
