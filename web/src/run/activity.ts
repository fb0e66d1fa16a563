import type { RunEvent } from '../types.js';
import { topNodeId } from './node-states.js';

/**
 * What an AI node's agent did, folded from the run's activity events in seq order
 * (src/worker/nodes/agent/agent-activity.ts writes them while the attempt works): its text and
 * thinking, each run of batches joined into one block, and each tool call with its input and,
 * once it came, its result (paired by `tool_call_id`), error or refusal. Also the provider's
 * rate limits and retries, one line each.
 */

export interface TextItem {
  kind: 'text' | 'thinking';
  path: string;
  text: string;
  /** Part of it is only in the attempt's activity file (the event says where). */
  cut: boolean;
}

export interface ToolItem {
  kind: 'tool';
  path: string;
  id: string | undefined;
  tool: string;
  summary: string;
  input: string;
  /** Undefined while the call has no result yet. */
  output: string | undefined;
  isError: boolean;
  refused: boolean;
  durationMs: number | undefined;
}

export interface NoticeItem {
  kind: 'notice';
  path: string;
  text: string;
}

export type ActivityItem = TextItem | ToolItem | NoticeItem;

export const activityEventTypes = new Set(['agent_text', 'agent_thinking', 'tool_called', 'tool_completed', 'provider_rate_limited', 'provider_retrying']);

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const cutOf = (data: Record<string, unknown>) => typeof data.persisted === 'object' && data.persisted !== null;

function notice(type: string, data: Record<string, unknown>): string {
  const wait = typeof data.retry_after_ms === 'number' ? ` (waits ${Math.round(data.retry_after_ms / 1000)} s)` : '';
  const said = str(data.message) || str(data.reason) || str(data.error);
  return `${type === 'provider_rate_limited' ? 'Rate limited by the provider' : 'The provider call is retried'}${wait}${said ? `: ${said}` : ''}`;
}

export function foldActivity(events: readonly RunEvent[], nodeId: string): ActivityItem[] {
  const items: ActivityItem[] = [];
  const open = new Map<string, ToolItem>();
  for (const event of events) {
    if (!activityEventTypes.has(event.event_type) || event.step_name === null || topNodeId(event.step_name) !== nodeId) continue;
    const path = event.step_name;
    const data = event.data;
    switch (event.event_type) {
      case 'agent_text':
      case 'agent_thinking': {
        const kind = event.event_type === 'agent_text' ? 'text' : 'thinking';
        const last = items.at(-1);
        if (last && last.kind === kind && last.path === path) {
          last.text += str(data.text);
          last.cut ||= cutOf(data);
        } else items.push({ kind, path, text: str(data.text), cut: cutOf(data) });
        break;
      }
      case 'tool_called': {
        const id = str(data.tool_call_id) || undefined;
        const item: ToolItem = {
          kind: 'tool', path, id, tool: str(data.tool_name) || 'tool', summary: str(data.summary), input: str(data.input),
          output: undefined, isError: false, refused: false, durationMs: undefined,
        };
        items.push(item);
        if (id) open.set(`${path}\u0000${id}`, item);
        break;
      }
      case 'tool_completed': {
        const id = str(data.tool_call_id) || undefined;
        const key = `${path}\u0000${id}`;
        let item = id ? open.get(key) : undefined;
        if (!item) {
          item = { kind: 'tool', path, id, tool: str(data.tool_name) || 'tool', summary: str(data.summary), input: '', output: undefined, isError: false, refused: false, durationMs: undefined };
          items.push(item);
        }
        open.delete(key);
        item.output = str(data.output);
        item.isError = data.is_error === true;
        item.refused = data.refused === true;
        item.durationMs = typeof data.duration_ms === 'number' ? data.duration_ms : undefined;
        break;
      }
      default:
        items.push({ kind: 'notice', path, text: notice(event.event_type, data) });
    }
  }
  return items;
}
