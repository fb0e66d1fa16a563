import type { SpendObservations } from '../../../records/spend.js';
import type { ProviderChunk } from '../provider-adapter.js';

/**
 * The Gemini CLI's `--output-format stream-json` lines (JSONL on stdout), read one at a time into
 * chunks and the final facts. Pure: the process side is in adapter.ts.
 *
 * Lines it reads: `init` (session id), `message` (assistant text deltas; the user's own echo is
 * skipped), `tool_use` / `tool_result` (a refusal marked, see isRefusal), `error` (a warning or
 * an error of the CLI's) and the final `result` (`status`, `error`, and `stats` with token
 * counts per model).
 */

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
      case 'init':
        if (typeof msg.session_id !== 'string') return [];
        this.sessionId = msg.session_id;
        return [{ type: 'session', sessionId: msg.session_id }];
      case 'message':
        if (msg.role !== 'assistant' || typeof msg.content !== 'string' || msg.content === '') return [];
        this.text += msg.content;
        return [{ type: 'text', text: msg.content }];
      case 'tool_use':
        return [{ type: 'tool_call', ...(typeof msg.tool_id === 'string' ? { id: msg.tool_id } : {}), name: String(msg.tool_name), input: msg.parameters ?? null }];
      case 'tool_result':
        return [{
          type: 'tool_result',
          ...(typeof msg.tool_id === 'string' ? { id: msg.tool_id } : {}),
          output: typeof msg.output === 'string' ? msg.output : JSON.stringify(msg.error ?? msg.output ?? ''),
          ...(msg.status === 'error' ? { isError: true } : {}),
          ...(msg.status === 'error' && isRefusal(msg.error) ? { refused: true } : {}),
        }];
      case 'result':
        this.readResult(msg);
        return [];
      default:
        return [];
    }
  }

  private readResult(msg: any): void {
    this.finished = true;
    if (msg.status === 'error') this.resultError = typeof msg.error?.message === 'string' ? msg.error.message : 'the CLI reported an error';
    const stats = msg.stats;
    if (!stats || typeof stats !== 'object') return;
    // `input_tokens` includes the cached part (`cached`); `input` is the rest.
    this.observations.tokens = {
      input: stats.input_tokens,
      output: stats.output_tokens,
      ...(stats.cached !== undefined ? { cacheRead: stats.cached } : {}),
      ...(stats.total_tokens !== undefined ? { total: stats.total_tokens } : {}),
    };
    const models = stats.models && typeof stats.models === 'object' ? Object.keys(stats.models) : [];
    // One model answered the whole turn: that is the resolved model. Several: none is "the" model.
    if (models.length === 1) this.resolvedModel = models[0];
  }
}
