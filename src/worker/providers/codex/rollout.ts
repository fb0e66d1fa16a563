import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { PermissionLevel } from '../../../shared/providers/agent-options.js';
import type { UnreadableTally } from '../common/stream-lines.js';
import { toolOutcome } from './tool-outcome.js';
import type { ProviderChunk } from '../provider-adapter.js';

/**
 * A Codex session's tool calls and their results, read from the session's rollout
 * (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, the file `exec resume`
 * continues from), as Codex appends to it.
 *
 * Why not `codex exec --json`: it never reports a call Codex's policy refused (a rejected patch,
 * a command that asked to leave the sandbox), and it drops the item of a command that fails fast
 * now and then (seen with 0.169 and 0.171, about one run in three). The rollout holds every call
 * and the very output the model was given, with the call's id, and is written as the turn goes,
 * so the adapter reads it whenever Codex prints a line and once more when it exits.
 *
 * Each line is read through the zod schemas below: fields the reader does not use pass through,
 * entries other than `response_item` (`session_meta`, `event_msg`, `turn_context`, ...) and items
 * that are not tool calls are skipped, and a line it cannot read is counted in the attempt's
 * `unreadable` tally (common/stream-lines.ts), with the CLI's stdout lines.
 */

/** A `response_item` entry: its item in `payload`. */
const responseItemSchema = z.looseObject({ payload: z.looseObject({ type: z.string() }) });
const webSearchSchema = z.looseObject({ id: z.string().nullish(), status: z.string().nullish(), action: z.unknown().optional() });
/** A `*_call` or `*_call_output` item; one without a call id is not a tool call of the turn's. */
const callSchema = z.looseObject({
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  arguments: z.unknown().optional(),
  input: z.unknown().optional(),
  action: z.unknown().optional(),
  output: z.unknown().optional(),
});
type CallItem = z.infer<typeof callSchema> & { type: string };

export class CodexRollout {
  private file: string | undefined;
  private offset = 0;
  private pending: Buffer = Buffer.alloc(0);
  /** bubblewrap's error, once a tool output showed Codex's sandbox cannot start on this machine. */
  sandboxFailure: string | undefined;

  constructor(
    private readonly sessionsDir: string,
    private readonly level: PermissionLevel,
    /** Where a line it cannot read is counted: the attempt's, shared with its stdout reader. */
    private readonly unreadable: UnreadableTally,
  ) {}

  /** A resumed session's rollout already holds its earlier turns: only what this attempt adds is read. */
  async skipExisting(threadId: string): Promise<void> {
    const file = await findRollout(this.sessionsDir, threadId);
    if (file === undefined) return;
    this.file = file;
    this.offset = (await stat(file)).size;
  }

  /** The tool chunks appended since the last read (none before the thread is known or its file exists). */
  async read(threadId: string | undefined): Promise<ProviderChunk[]> {
    if (threadId === undefined) return [];
    this.file ??= await findRollout(this.sessionsDir, threadId);
    if (this.file === undefined) return [];
    const chunks: ProviderChunk[] = [];
    for (const line of await this.newLines(this.file)) chunks.push(...this.chunksOf(line));
    return chunks;
  }

  private async newLines(file: string): Promise<string[]> {
    const handle = await open(file, 'r');
    const parts: Buffer[] = [this.pending];
    try {
      for (;;) {
        const buffer = Buffer.alloc(64 * 1024);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        parts.push(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
    const all = Buffer.concat(parts);
    const end = all.lastIndexOf(0x0a);
    this.pending = end < 0 ? all : all.subarray(end + 1);
    return end < 0 ? [] : all.subarray(0, end).toString('utf8').split('\n');
  }

  private chunksOf(line: string): ProviderChunk[] {
    const entry = this.unreadable.event(line);
    if (entry?.type !== 'response_item') return [];
    const item = this.unreadable.read(responseItemSchema, entry, line, 'rollout "response_item"')?.payload;
    if (!item) return [];
    const what = `rollout "${item.type}" item`;
    if (item.type === 'web_search_call') {
      const search = this.unreadable.read(webSearchSchema, item, line, what);
      if (!search) return [];
      const id = typeof search.id === 'string' ? { id: search.id } : {};
      return [
        { type: 'tool_call', ...id, name: 'web_search', input: search.action ?? null },
        { type: 'tool_result', ...id, output: search.status ?? '', ...(search.status === 'failed' ? { isError: true } : {}) },
      ];
    }
    if (!item.type.endsWith('_output') && !item.type.endsWith('_call')) return [];
    const call = this.unreadable.read(callSchema, item, line, what);
    if (typeof call?.call_id !== 'string') return [];
    if (item.type.endsWith('_output')) return [this.resultOf(call.call_id, outputText(call.output))];
    const typed: CallItem = { ...call, type: item.type };
    return [{ type: 'tool_call', id: call.call_id, name: toolName(typed), input: toolInput(typed) }];
  }

  private resultOf(id: string, output: string): ProviderChunk {
    const outcome = toolOutcome(output, this.level);
    if (outcome.sandboxFailure !== undefined) this.sandboxFailure ??= outcome.sandboxFailure;
    return {
      type: 'tool_result',
      id,
      output,
      ...(outcome.isError ? { isError: true } : {}),
      ...(outcome.refused ? { refused: true } : {}),
    };
  }
}

/** The rollout file of `threadId`, if Codex has created it yet. */
async function findRollout(dir: string, threadId: string): Promise<string | undefined> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { recursive: true })) as string[];
  } catch {
    return undefined;
  }
  const name = entries.find((e) => e.endsWith(`-${threadId}.jsonl`));
  return name === undefined ? undefined : join(dir, name);
}

/** An MCP tool sits in its server's namespace (`mcp__<server>`): `mcp__<server>__<tool>`, as Claude names them. */
function toolName(item: CallItem): string {
  const name = typeof item.name === 'string' ? item.name : item.type.replace(/_call$/, '');
  return typeof item.namespace === 'string' && item.namespace !== '' ? `${item.namespace}__${name}` : name;
}

function toolInput(item: CallItem): unknown {
  if (typeof item.arguments === 'string') {
    try {
      return JSON.parse(item.arguments);
    } catch {
      return item.arguments;
    }
  }
  return item.input ?? item.action ?? item.arguments ?? null;
}

/** A tool output is text, or content parts (an MCP result: `input_text` parts). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: unknown) => textOf(part) ?? '').join('');
  const content = output && typeof output === 'object' ? (output as { content?: unknown }).content : undefined;
  if (typeof content === 'string') return content;
  return JSON.stringify(output ?? '');
}

/** A content part's `text`, when it has one. */
function textOf(part: unknown): string | undefined {
  const text = part && typeof part === 'object' ? (part as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : undefined;
}
