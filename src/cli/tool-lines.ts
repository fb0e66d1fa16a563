import type { StreamPayload } from '../wire/stream-frames.js';

/**
 * An AI node's tool calls as `cairn run logs --follow` shows them, one line each: the call with a
 * short summary of its input (`called   look Read notes.txt`), and its result (`ok`, `error` or
 * `refused`, the provider's permission check having said no).
 */

/** Longest input summary shown. */
const SUMMARY_MAX = 80;

/** Input fields that say what a call is about, most telling first (file tools, shells, searches, fetches). */
const tellingKeys = ['command', 'file_path', 'path', 'pattern', 'query', 'url', 'description'];

/** A short one-line summary of a tool call's input (the event keeps it as JSON text, cut at 2,000 characters). */
export function summariseToolInput(input: unknown): string {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      value = input;
    }
  }
  let text: string;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const key = tellingKeys.find((k) => typeof fields[k] === 'string') ?? Object.keys(fields).find((k) => typeof fields[k] === 'string');
    text = key !== undefined ? String(fields[key]) : JSON.stringify(value);
  } else {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}

export interface ToolLine {
  verb: 'called' | 'ok' | 'error' | 'refused';
  node: string;
  tool: string;
  summary?: string;
}

/** The line of a `tool_called` / `tool_completed` frame, or undefined for any other frame. */
export function toolLineOf(frame: StreamPayload): ToolLine | undefined {
  if (frame.type !== 'workflow_event' || !frame.stepName) return undefined;
  const data = frame.data as Record<string, unknown>;
  const tool = typeof data.tool_name === 'string' ? data.tool_name : 'a tool';
  if (frame.eventType === 'tool_called') {
    const summary = summariseToolInput(data.input);
    return { verb: 'called', node: frame.stepName, tool, ...(summary ? { summary } : {}) };
  }
  if (frame.eventType !== 'tool_completed') return undefined;
  const verb = data.refused === true ? 'refused' : data.is_error === true ? 'error' : 'ok';
  return { verb, node: frame.stepName, tool };
}
