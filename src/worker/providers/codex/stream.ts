import type { SpendObservations } from '../../../records/spend.js';
import type { ProviderChunk } from '../provider-adapter.js';

/**
 * The Codex CLI's `codex exec --json` lines (JSONL on stdout), read one at a time into chunks and
 * the final facts. Pure: the process side is in codex.ts.
 *
 * Lines it reads: `thread.started` (the session id), `item.completed` (`agent_message` text,
 * `reasoning`; an `error` item is a warning of the CLI's), `turn.completed` (usage) and
 * `turn.failed` / `error` (the CLI's words for a failed call). Tool items are left to the session's
 * rollout (codex-rollout.ts): this stream leaves refused calls out.
 */

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

  read(line: string): ProviderChunk[] {
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      return [];
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return [];
    this.sawLine = true;
    switch (msg.type) {
      case 'thread.started':
        if (typeof msg.thread_id !== 'string') return [];
        this.sessionId = msg.thread_id;
        return [{ type: 'session', sessionId: msg.thread_id }];
      case 'item.completed':
        return this.readCompleted(msg.item);
      case 'turn.completed':
        this.finished = true;
        if (msg.usage !== undefined) this.observations.tokens = tokensOf(msg.usage);
        return [];
      case 'turn.failed':
        this.errorMessage = typeof msg.error?.message === 'string' ? msg.error.message : 'the turn failed';
        return [];
      case 'error':
        if (typeof msg.message === 'string') this.errorMessage ??= msg.message;
        return [];
      default:
        return [];
    }
  }

  private readCompleted(item: any): ProviderChunk[] {
    if (!item || typeof item !== 'object') return [];
    if (item.type === 'agent_message' && typeof item.text === 'string') {
      this.text += item.text;
      this.lastMessage = item.text;
      return [{ type: 'text', text: item.text }];
    }
    if (item.type === 'reasoning' && typeof item.text === 'string') return [{ type: 'thinking', text: item.text }];
    return [];
  }
}

/**
 * Codex's turn usage, as the Responses API counted it: `input_tokens` includes the cached part,
 * reported as `cacheRead`. A count the CLI leaves out stays out (never 0).
 */
function tokensOf(usage: any): unknown {
  if (!usage || typeof usage !== 'object') return usage;
  const optional = (key: string, value: unknown) => (value !== undefined ? { [key]: value } : {});
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    ...optional('cacheRead', usage.cached_input_tokens),
  };
}
