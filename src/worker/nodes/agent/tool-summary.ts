/**
 * A tool call's input in one short line, for its event and the CLI's line: the argument that says
 * what the call does (a command, a file path, a pattern, a URL), else the first text argument,
 * else the input as compact JSON; whitespace folded, cut to `max` characters.
 */

/** Arguments that name what a call does, most telling first (the CLIs' own tool inputs). */
const TELLING_KEYS = ['command', 'cmd', 'file_path', 'filePath', 'path', 'pattern', 'url', 'query', 'description', 'prompt'] as const;

export const TOOL_SUMMARY_MAX = 100;

export function summarizeToolInput(input: unknown, max = TOOL_SUMMARY_MAX): string {
  return oneLine(pick(input), max);
}

function pick(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === null || input === undefined) return '';
  if (typeof input !== 'object' || Array.isArray(input)) return json(input);
  const record = input as Record<string, unknown>;
  for (const key of TELLING_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
    // Codex and others pass a command as argv.
    if (Array.isArray(value) && value.every((part) => typeof part === 'string') && value.length > 0) return value.join(' ');
  }
  for (const value of Object.values(record)) if (typeof value === 'string' && value.trim() !== '') return value;
  return json(input);
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Whitespace runs become one space; a longer text ends in `…` within `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}
