import { z } from 'zod';
import type { SpendObservations } from '../../../records/spend.js';
import { adapterFailure, classifyFailure } from '../common/failure-class.js';
import { UnreadableTally } from '../common/stream-lines.js';
import type { AdapterFailure, ProviderChunk } from '../provider-adapter.js';

/**
 * The Claude Code CLI's `--output-format stream-json --verbose` lines, read one at a time into
 * chunks and the final facts. Pure: the process side is in adapter.ts.
 *
 * Lines it reads: `system/init` (session id), `assistant` (text, thinking, tool_use blocks;
 * the API's own model name), `user` (tool_result blocks), `system/api_retry` (each retry of an
 * API call with its HTTP status and error class), and the final `result` (usage, cost, turns,
 * stop reason, structured output).
 *
 * Each is read through its zod schema below: fields the reader does not use pass through, other
 * event types and other content blocks are skipped, and a line it cannot read is counted in
 * `unreadable` (common/stream-lines.ts).
 */

const initSchema = z.looseObject({ session_id: z.string() });
const apiRetrySchema = z.looseObject({
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number().nullish(),
  /** Absent or null: the call got no HTTP answer (a refused connection). */
  error_status: z.number().nullish(),
  error: z.string().nullish(),
});
type ApiRetry = z.infer<typeof apiRetrySchema>;

/** A message's content blocks; a block of a type the reader does not know passes. */
const blocksSchema = z.array(z.looseObject({ type: z.string() }));
const assistantSchema = z.looseObject({
  message: z.looseObject({ model: z.string().nullish(), content: blocksSchema.nullish() }),
});
const textBlockSchema = z.looseObject({ text: z.string() });
const thinkingBlockSchema = z.looseObject({ thinking: z.string() });
const toolUseBlockSchema = z.looseObject({ id: z.string().nullish(), name: z.string(), input: z.unknown().optional() });
/** A user message: tool results as blocks, or (a replayed prompt) a plain string. */
const userSchema = z.looseObject({
  message: z.looseObject({ content: z.union([z.string(), blocksSchema]).nullish() }),
});
const toolResultBlockSchema = z.looseObject({ tool_use_id: z.string().nullish(), content: z.unknown().optional(), is_error: z.boolean().nullish() });
const usageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});
const resultSchema = z.looseObject({
  subtype: z.string().nullish(),
  session_id: z.string().nullish(),
  result: z.string().nullish(),
  structured_output: z.unknown().optional(),
  usage: usageSchema.nullish(),
  total_cost_usd: z.number().nullish(),
  num_turns: z.number().nullish(),
  stop_reason: z.string().nullish(),
  is_error: z.boolean().nullish(),
  errors: z.array(z.unknown()).nullish(),
});
type ResultLine = z.infer<typeof resultSchema>;

/** What one line means to the attempt. `stop`: end the process now with this failure. */
export interface LineReading {
  chunks: ProviderChunk[];
  stop?: AdapterFailure;
}

/** Retry notices of errors that retrying cannot fix: the CLI would retry a 401 for minutes. */
const hopelessRetry = new Set(['authentication_failed', 'billing_error', 'invalid_request']);

/**
 * Retries of a call that never reached the server (no HTTP status: refused, reset, no route)
 * Claude Code may make before Cairn stops it: the CLI would go on for about three minutes in
 * silence. Three take about 4 s; past them the attempt fails `transient`, naming the address, and
 * the node's retry policy decides what comes next.
 */
export const CONNECTION_RETRIES_BEFORE_STOP = 3;

export class ClaudeStreamState {
  /**
   * `hookDenials`: the texts the node's own hooks deny a call with (options.ts).
   * `address`: the Messages API the CLI calls, named in connection notices and failures.
   */
  constructor(
    private readonly hookDenials: readonly string[] = [],
    private readonly address = 'https://api.anthropic.com',
  ) {}

  text = '';
  resultText: string | undefined;
  structured: unknown;
  sessionId: string | undefined;
  resolvedModel: string | undefined;
  observations: SpendObservations = {};
  /** The `result` line arrived. */
  finished = false;
  /** An `is_error` result, classified. */
  resultFailure: AdapterFailure | undefined;
  /** The result said the session asked for with `--resume` does not exist (here, any more). */
  sessionNotFound = false;
  /** Any line at all arrived (an empty stream is a transient failure). */
  sawLine = false;
  /** The API answered (a message, or an error the CLI retries): a call reached the provider. */
  answered = false;
  /** Lines it could not read. */
  readonly unreadable = new UnreadableTally();

  read(line: string): LineReading {
    const event = this.unreadable.event(line);
    if (event === undefined) return { chunks: [] };
    this.sawLine = true;
    switch (event.type) {
      case 'system':
        return this.readSystem(event, line);
      case 'assistant': {
        const msg = this.unreadable.read(assistantSchema, event, line, '"assistant" event');
        return { chunks: msg ? this.readAssistant(msg.message, line) : [] };
      }
      case 'user': {
        const msg = this.unreadable.read(userSchema, event, line, '"user" event');
        return { chunks: msg ? this.readToolResults(msg.message.content, line) : [] };
      }
      case 'result': {
        const msg = this.unreadable.read(resultSchema, event, line, '"result" event');
        if (msg) this.readResult(msg);
        return { chunks: [] };
      }
      default:
        return { chunks: [] };
    }
  }

  private readSystem(event: Record<string, unknown>, line: string): LineReading {
    if (event.subtype === 'init') {
      const init = this.unreadable.read(initSchema, event, line, '"system/init" event');
      if (!init) return { chunks: [] };
      this.sessionId = init.session_id;
      return { chunks: [{ type: 'session', sessionId: init.session_id }] };
    }
    if (event.subtype !== 'api_retry') return { chunks: [] };
    const msg = this.unreadable.read(apiRetrySchema, event, line, '"system/api_retry" event');
    if (!msg) return { chunks: [] };
    const status = msg.error_status ?? undefined;
    const errorClass = msg.error ?? 'unknown';
    if (status === undefined) return this.readConnectionRetry(msg);
    this.answered = true;
    const evidence = `api_retry attempt ${msg.attempt}/${msg.max_retries}: HTTP ${status} ${errorClass}`;
    if (hopelessRetry.has(errorClass) || status === 401 || status === 403) {
      return { chunks: [], stop: adapterFailure(classifyFailure(status, errorClass), evidence) };
    }
    if (errorClass === 'rate_limit' || status === 429 || status === 529) {
      const delay = typeof msg.retry_delay_ms === 'number' ? Math.round(msg.retry_delay_ms) : undefined;
      return {
        chunks: [{
          type: 'rate_limit',
          ...(status !== undefined ? { status } : {}),
          ...(delay !== undefined ? { retryAfterMs: delay } : {}),
          message: status === 529 ? 'the provider is overloaded; Claude Code retries' : 'rate limited; Claude Code retries',
        }],
      };
    }
    return { chunks: [] };
  }

  /** A retry of a call that got no HTTP answer: shown as it happens, and stopped after a few. */
  private readConnectionRetry(msg: ApiRetry): LineReading {
    const attempt = msg.attempt;
    const max = msg.max_retries;
    const delay = typeof msg.retry_delay_ms === 'number' ? Math.round(msg.retry_delay_ms) : undefined;
    const message = `cannot connect to ${this.address}; Claude Code retries (${attempt}/${max})`;
    const notice: ProviderChunk = { type: 'retrying', attempt, maxRetries: max, ...(delay !== undefined ? { retryAfterMs: delay } : {}), message };
    if (attempt < CONNECTION_RETRIES_BEFORE_STOP) return { chunks: [notice] };
    return {
      chunks: [notice],
      stop: adapterFailure('transient', `cannot connect to the provider at ${this.address}: no answer after ${attempt} tries by Claude Code. Check that the server runs and the base URL is right (assistants.claude.baseUrl or ANTHROPIC_BASE_URL)`),
    };
  }

  private readAssistant(message: z.infer<typeof assistantSchema>['message'], line: string): ProviderChunk[] {
    if (typeof message.model === 'string' && message.model !== '' && message.model !== '<synthetic>') {
      this.resolvedModel = message.model;
      this.answered = true;
    }
    const chunks: ProviderChunk[] = [];
    for (const block of message.content ?? []) {
      if (block.type === 'text') {
        const text = this.unreadable.read(textBlockSchema, block, line, '"assistant" text block');
        if (!text) continue;
        this.text += text.text;
        chunks.push({ type: 'text', text: text.text });
      } else if (block.type === 'thinking') {
        const thinking = this.unreadable.read(thinkingBlockSchema, block, line, '"assistant" thinking block');
        if (thinking) chunks.push({ type: 'thinking', text: thinking.thinking });
      } else if (block.type === 'tool_use') {
        const call = this.unreadable.read(toolUseBlockSchema, block, line, '"assistant" tool_use block');
        if (call) chunks.push({ type: 'tool_call', ...(typeof call.id === 'string' ? { id: call.id } : {}), name: call.name, input: call.input });
      }
    }
    return chunks;
  }

  private readToolResults(content: z.infer<typeof userSchema>['message']['content'], line: string): ProviderChunk[] {
    if (!Array.isArray(content)) return [];
    const chunks: ProviderChunk[] = [];
    for (const block of content) {
      if (block.type !== 'tool_result') continue;
      const b = this.unreadable.read(toolResultBlockSchema, block, line, '"user" tool_result block');
      if (!b) continue;
      const output = resultText(b.content);
      const isError = b.is_error === true;
      chunks.push({
        type: 'tool_result' as const,
        ...(typeof b.tool_use_id === 'string' ? { id: b.tool_use_id } : {}),
        output,
        ...(isError ? { isError: true } : {}),
        ...(isError && isRefusal(output, this.hookDenials) ? { refused: true } : {}),
      });
    }
    return chunks;
  }

  private readResult(msg: ResultLine): void {
    this.finished = true;
    if (typeof msg.session_id === 'string') this.sessionId = msg.session_id;
    if (typeof msg.result === 'string') this.resultText = msg.result;
    if (msg.structured_output !== undefined) this.structured = msg.structured_output;
    const o = this.observations;
    if (msg.usage !== undefined) o.tokens = tokensOf(msg.usage);
    if (msg.total_cost_usd !== undefined) o.costUsd = msg.total_cost_usd;
    if (msg.num_turns !== undefined) o.numTurns = msg.num_turns;
    if (typeof msg.stop_reason === 'string') o.stopReason = msg.stop_reason;
    if (msg.is_error === true || (typeof msg.subtype === 'string' && msg.subtype.startsWith('error'))) {
      this.resultFailure = classifyResultError(msg);
      this.sessionNotFound = errorsOf(msg).some((e) => /no conversation found with session id/i.test(e));
    }
  }
}

/**
 * The texts the CLI answers a call with when it refused it rather than ran it: a permission it
 * was not given ("Claude requested permissions to write to …, but you haven't granted it yet",
 * "… which is a sensitive file"), a mode or a deny rule ("Permission to use Bash has been denied
 * because Claude Code is running in don't ask mode", "Permission to use Bash with command … has
 * been denied"), or a tool it does not offer ("No such tool available: Write"). The same words
 * in Claude Code 2.1.100 and 2.1.332; the final `result` lists the same calls in
 * `permission_denials`, but only once the session is over.
 */
const refusalText =
  /^\s*(?:<tool_use_error>)?\s*(?:Error:\s*)?(?:Claude requested permissions? to |Permission (?:to \w+|for this action)\b.*?(?:has been|was) denied|No such tool available)/s;

/**
 * A call a `PreToolUse` hook blocked, which therefore never ran: 2.1.332 says so
 * (`PreToolUse:Write hook error: <reason>`); 2.1.100 answers with the hook's reason alone, known
 * for the node's own `response` hooks.
 */
const hookBlockText = /^\s*PreToolUse:\S+ hook error: /;

function isRefusal(output: string, hookDenials: readonly string[]): boolean {
  return refusalText.test(output) || hookBlockText.test(output) || hookDenials.includes(output.trim());
}

/** A tool result's content: a string, or blocks whose texts are joined (an MCP tool's answer). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((b) => typeof b?.text === 'string')) return content.map((b) => b.text).join('\n');
  return JSON.stringify(content ?? '');
}

/** The CLI's usage, as the API counted it: `input_tokens` excludes the cache reads and writes. */
function tokensOf(usage: z.infer<typeof usageSchema> | null): unknown {
  if (!usage) return usage;
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    ...(usage.cache_read_input_tokens !== undefined ? { cacheRead: usage.cache_read_input_tokens } : {}),
    ...(usage.cache_creation_input_tokens !== undefined ? { cacheWrite: usage.cache_creation_input_tokens } : {}),
  };
}

/** An error result: the CLI writes `API Error: <status> <body>` or its own words. */
/** The `errors` texts of an error result (what the CLI says when it fails before any turn). */
function errorsOf(msg: ResultLine): string[] {
  return Array.isArray(msg.errors) ? msg.errors.filter((e: unknown): e is string => typeof e === 'string') : [];
}

function classifyResultError(msg: ResultLine): AdapterFailure {
  const text = typeof msg.result === 'string' ? msg.result : errorsOf(msg).join('; ') || String(msg.subtype ?? 'error');
  if (msg.subtype === 'error_max_budget_usd') return adapterFailure('budget_exceeded', text);
  if (msg.subtype === 'error_max_turns') return adapterFailure('unknown', `stopped at the turn limit: ${text}`);
  const status = /API Error: (\d{3})/.exec(text)?.[1];
  const type = /"type":"([a-z_]+_error)"/.exec(text)?.[1];
  if (/credit balance is too low/i.test(text)) return adapterFailure('quota_exhausted', text);
  // A node that asks for a sandbox the CLI cannot start here (`failIfUnavailable`).
  if (/sandbox required but unavailable/i.test(text)) return adapterFailure('misconfigured', text);
  if (/invalid api key|please run \/login/i.test(text)) return adapterFailure('auth', text);
  return adapterFailure(status || type ? classifyFailure(status ? Number(status) : undefined, type) : 'unknown', text);
}
