import { z } from 'zod';
import type { SpendObservations } from '../../../records/spend.js';
import { UnreadableTally } from '../common/stream-lines.js';
import type { ProviderChunk } from '../provider-adapter.js';

/**
 * The Gemini CLI's `--output-format stream-json` lines (JSONL on stdout), read one at a time into
 * chunks and the final facts. Pure: the process side is in adapter.ts.
 *
 * Lines it reads: `init` (session id), `message` (assistant text deltas; the user's own echo is
 * skipped), `tool_use` / `tool_result` (a refusal marked, see isRefusal) and the final `result`
 * (`status`, `error`, and `stats` with token counts per model). An `error` line is a warning the
 * CLI also writes to stderr (a loop detected, a blocked turn); a failed turn still ends in a
 * `result` with `status: error`, so it is skipped like other event types.
 *
 * Each is read through its zod schema below: fields the reader does not use pass through, other
 * event types are skipped, and a line it cannot read is counted in `unreadable`
 * (common/stream-lines.ts).
 */

const initSchema = z.looseObject({ session_id: z.string() });
const messageSchema = z.looseObject({ role: z.string(), content: z.string() });
const toolUseSchema = z.looseObject({ tool_name: z.string(), tool_id: z.string().nullish(), parameters: z.unknown().optional() });
const toolErrorSchema = z.looseObject({ type: z.string().nullish(), message: z.string().nullish() });
const toolResultSchema = z.looseObject({
  tool_id: z.string().nullish(),
  status: z.string().nullish(),
  output: z.string().nullish(),
  error: toolErrorSchema.nullish(),
});
/** A `result`'s outcome; its `stats` are read on their own, so odd stats never hide the end. */
const resultSchema = z.looseObject({
  status: z.string().nullish(),
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  stats: z.unknown().optional(),
});
const count = z.number().nullish();
const statsSchema = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  cached: count,
  total_tokens: count,
  models: z.record(z.string(), z.unknown()).nullish(),
});

/**
 * A tool call the CLI refused rather than ran, from the `error` of its `tool_result`: a policy
 * denial (`policy_violation`: Cairn's level, denied_tools, the CLI's protection of build files),
 * a tool not offered at this level (`tool_not_registered`), a path outside the workspace
 * directories (`path_not_in_workspace`, or `invalid_tool_params` saying `Path not in
 * workspace` when the file tools check their arguments), and a call that needed a user's
 * confirmation, which nobody can give here. Any other error is a tool that ran and failed.
 */
export function isRefusal(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (type === 'policy_violation' || type === 'tool_not_registered' || type === 'path_not_in_workspace') return true;
  const text = typeof message === 'string' ? message : '';
  if (type === 'invalid_tool_params' && /^Path not in workspace\b/.test(text)) return true;
  return /requires user confirmation, which is not supported in non-interactive mode/.test(text);
}

export class GeminiStreamState {
  text = '';
  sessionId: string | undefined;
  resolvedModel: string | undefined;
  observations: SpendObservations = {};
  /** The `result` line arrived. */
  finished = false;
  /** A `result` with `status: error`: the CLI's own words. */
  resultError: string | undefined;
  sawLine = false;
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

  read(line: string): ProviderChunk[] {
    const event = this.unreadable.event(line);
    if (event === undefined) return [];
    this.sawLine = true;
    const what = `"${event.type}" event`;
    switch (event.type) {
      case 'init': {
        const msg = this.unreadable.read(initSchema, event, line, what);
        if (!msg) return [];
        this.sessionId = msg.session_id;
        return [{ type: 'session', sessionId: msg.session_id }];
      }
      case 'message': {
        const msg = this.unreadable.read(messageSchema, event, line, what);
        if (!msg || msg.role !== 'assistant' || msg.content === '') return [];
        this.text += msg.content;
        return [{ type: 'text', text: msg.content }];
      }
      case 'tool_use': {
        const msg = this.unreadable.read(toolUseSchema, event, line, what);
        if (!msg) return [];
        return [{ type: 'tool_call', ...(typeof msg.tool_id === 'string' ? { id: msg.tool_id } : {}), name: msg.tool_name, input: msg.parameters ?? null }];
      }
      case 'tool_result': {
        const msg = this.unreadable.read(toolResultSchema, event, line, what);
        if (!msg) return [];
        const failed = msg.status === 'error';
        return [{
          type: 'tool_result',
          ...(typeof msg.tool_id === 'string' ? { id: msg.tool_id } : {}),
          output: typeof msg.output === 'string' ? msg.output : JSON.stringify(msg.error ?? msg.output ?? ''),
          ...(failed ? { isError: true } : {}),
          ...(failed && isRefusal(msg.error) ? { refused: true } : {}),
        }];
      }
      case 'result': {
        const msg = this.unreadable.read(resultSchema, event, line, what);
        // The turn ended even when its line is odd: the end is not made a failure by a field.
        this.finished = true;
        if (!msg) {
          if (event.status === 'error') this.resultError = 'the CLI reported an error';
          return [];
        }
        if (msg.status === 'error') this.resultError = msg.error?.message ?? 'the CLI reported an error';
        if (msg.stats != null) this.readStats(msg.stats, line);
        return [];
      }
      default:
        return [];
    }
  }

  private readStats(value: unknown, line: string): void {
    const stats = this.unreadable.read(statsSchema, value, line, '"result" stats');
    if (!stats) return;
    // `input_tokens` includes the cached part (`cached`); `input` is the rest.
    this.observations.tokens = {
      input: stats.input_tokens,
      output: stats.output_tokens,
      ...(stats.cached !== undefined ? { cacheRead: stats.cached } : {}),
      ...(stats.total_tokens !== undefined ? { total: stats.total_tokens } : {}),
    };
    const models = stats.models ? Object.keys(stats.models) : [];
    // One model answered the whole turn: that is the resolved model. Several: none is "the" model.
    if (models.length === 1) this.resolvedModel = models[0];
  }
}
