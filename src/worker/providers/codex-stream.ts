import type { SpendObservations } from '../../records/spend.js';
import type { ProviderChunk } from './provider-adapter.js';

/**
 * The Codex CLI's `codex exec --json` lines (JSONL on stdout), read one at a time into chunks and
 * the final facts. Pure: the process side is in codex.ts.
 *
 * Lines it reads: `thread.started` (the session id), `item.started` / `item.completed` (items:
 * `agent_message` text, `reasoning`, `command_execution`, `mcp_tool_call`, `file_change`,
 * `web_search`; an `error` item is a warning of the CLI's), `turn.completed` (usage) and
 * `turn.failed` / `error` (the CLI's words for a failed call).
 */

const toolItems = new Set(['command_execution', 'mcp_tool_call', 'file_change', 'web_search']);

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
  /** Tool items whose start was already shown. */
  private readonly started = new Set<string>();

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
      case 'item.started':
        return this.readStarted(msg.item);
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

  private readStarted(item: any): ProviderChunk[] {
    if (!item || !toolItems.has(item.type)) return [];
    const id = String(item.id ?? '');
    this.started.add(id);
    return [toolCall(item)];
  }

  private readCompleted(item: any): ProviderChunk[] {
    if (!item || typeof item !== 'object') return [];
    if (item.type === 'agent_message' && typeof item.text === 'string') {
      this.text += item.text;
      this.lastMessage = item.text;
      return [{ type: 'text', text: item.text }];
    }
    if (item.type === 'reasoning' && typeof item.text === 'string') return [{ type: 'thinking', text: item.text }];
    if (!toolItems.has(item.type)) return [];
    const id = String(item.id ?? '');
    const chunks: ProviderChunk[] = this.started.has(id) ? [] : [toolCall(item)];
    chunks.push(toolResult(item));
    return chunks;
  }
}

function toolCall(item: any): ProviderChunk {
  const id = typeof item.id === 'string' ? { id: item.id } : {};
  switch (item.type) {
    case 'command_execution':
      return { type: 'tool_call', ...id, name: 'command_execution', input: { command: item.command } };
    case 'mcp_tool_call':
      return { type: 'tool_call', ...id, name: `${item.server}.${item.tool}`, input: item.arguments ?? null };
    case 'web_search':
      return { type: 'tool_call', ...id, name: 'web_search', input: { query: item.query } };
    default:
      return { type: 'tool_call', ...id, name: String(item.type), input: item.changes ?? null };
  }
}

function toolResult(item: any): ProviderChunk {
  const id = typeof item.id === 'string' ? { id: item.id } : {};
  const failed = item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0) || item.error != null;
  const output =
    typeof item.aggregated_output === 'string'
      ? item.aggregated_output
      : JSON.stringify(item.result ?? item.error ?? item.changes ?? item.status ?? '');
  return { type: 'tool_result', ...id, output, ...(failed ? { isError: true } : {}) };
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
