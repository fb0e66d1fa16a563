import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { absolutePath, cwdFromRequestText, scriptFor, stepAt, withArtifacts, withCwd, type AgentScript, type AgentStep } from './agent-script.js';

/**
 * A local server that speaks the Anthropic Messages API's wire format: `POST /v1/messages`
 * answered with the SSE stream the real API sends (`message_start`, `content_block_*`,
 * `message_delta`, `message_stop`), or with the API's error bodies and headers. Tests script
 * each answer; the real adapters (and the real Claude Code CLI) talk to it.
 *
 * `scriptedMessages` / `startScriptedClaudeServer` play a scripted coding agent
 * (agent-script.ts) against the real Claude Code CLI: each step becomes a `tool_use` of the
 * CLI's own tools, which the CLI then really executes in its working directory.
 */

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string };

/** Usage as the API reports it; a key left out is not sent at all. */
export interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export type MessagesReply =
  | {
      kind: 'stream'; model?: string; blocks: Block[]; usage?: WireUsage; stopReason?: string; stallAfterFirst?: boolean; delayMs?: number;
      /** The answer is held until this settles (the test releases it). */
      heldUntil?: Promise<unknown>;
      /** The first block is sent at once, the rest (and the end) only once this settles. */
      restHeldUntil?: Promise<unknown>;
    }
  /** An HTTP error with the API's `{ type: 'error', error: { type, message } }` body. */
  | { kind: 'error'; status: number; type: string; message: string; headers?: Record<string, string> }
  /** An error event in the middle of a 200 stream (the API does this for overload). */
  | { kind: 'stream_error'; type: string; message: string }
  /** Headers are sent, then nothing: no event ever arrives. */
  | { kind: 'hang' }
  /** A 200 stream that closes without a single event. */
  | { kind: 'empty' };

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface AnthropicServer {
  url: string;
  requests: RecordedRequest[];
  /** The most Messages requests that were open at once. */
  maxConcurrent(): number;
  close(): Promise<void>;
}

/** Starts the server; `reply` decides each answer (by request, or by its position). */
export async function startAnthropicServer(
  reply: (req: RecordedRequest, index: number) => MessagesReply,
  opts: { models?: readonly string[]; onModels?: (headers: IncomingMessage['headers']) => void; port?: number } = {},
): Promise<AnthropicServer> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  let maxOpen = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').startsWith('/v1/models')) {
      // The Models API's list (`GET /v1/models`), one page.
      opts.onModels?.(req.headers);
      const data = (opts.models ?? ['claude-test']).map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }));
      return;
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const recorded: RecordedRequest = { path: req.url ?? '', headers: req.headers, body: safeJson(raw) };
      if (!(req.url ?? '').startsWith('/v1/messages') || (req.url ?? '').startsWith('/v1/messages/count_tokens')) {
        // Anything else the CLI asks for (token counts, metadata) gets a small valid answer.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 1 }));
        return;
      }
      requests.push(recorded);
      open.add(res);
      maxOpen = Math.max(maxOpen, open.size);
      res.on('close', () => open.delete(res));
      const answerWith = reply(recorded, requests.length - 1);
      const delay = answerWith.kind === 'stream' ? (answerWith.delayMs ?? 0) : 0;
      if (answerWith.kind === 'stream' && answerWith.heldUntil) void answerWith.heldUntil.then(() => answer(res, answerWith, recorded.body?.model));
      else if (delay > 0) setTimeout(() => answer(res, answerWith, recorded.body?.model), delay);
      else answer(res, answerWith, recorded.body?.model);
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    maxConcurrent: () => maxOpen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function answer(res: ServerResponse, reply: MessagesReply, requestedModel: unknown): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': 'req_test', ...reply.headers });
    res.end(JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_test' });
  if (reply.kind === 'hang') {
    res.flushHeaders();
    return;
  }
  if (reply.kind === 'empty') {
    res.end();
    return;
  }
  if (reply.kind === 'stream_error') {
    sse(res, 'error', { type: 'error', error: { type: reply.type, message: reply.message } });
    res.end();
    return;
  }
  const usage = reply.usage ?? { input_tokens: 10, output_tokens: 5 };
  const { output_tokens: outputTokens, ...startUsage } = usage;
  const model = reply.model ?? (typeof requestedModel === 'string' ? requestedModel : 'claude-test');
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: 'msg_test', type: 'message', role: 'assistant', content: [], model,
      stop_reason: null, stop_sequence: null, usage: { ...startUsage, output_tokens: 1 },
    },
  });
  const writeBlock = (block: Block, index: number) => {
    if (reply.stallAfterFirst && index > 0) return;
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else if (block.type === 'thinking') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig' } });
    } else {
      const id = block.id ?? `toolu_${index}`;
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: block.name, input: {} } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    if (!reply.stallAfterFirst) sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  };
  // The first block now, the others once the test releases them: an answer caught half-written.
  if (reply.restHeldUntil) {
    writeBlock(reply.blocks[0]!, 0);
    void reply.restHeldUntil.then(() => {
      reply.blocks.slice(1).forEach((block, i) => writeBlock(block, i + 1));
      endStream(res, reply, outputTokens);
    });
    return;
  }
  reply.blocks.forEach(writeBlock);
  // Stalls after the first block's first delta: the stream stays open and silent.
  if (reply.stallAfterFirst) return;
  endStream(res, reply, outputTokens);
}

function endStream(res: ServerResponse, reply: Extract<MessagesReply, { kind: 'stream' }>, outputTokens: number | undefined): void {
  const deltaUsage = outputTokens === undefined ? {} : { output_tokens: outputTokens };
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.stopReason ?? (reply.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'), stop_sequence: null },
    usage: deltaUsage,
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

/** A tool result the CLI sent back to the scripted agent: the call it answers, and what it said. */
export interface SeenToolResult {
  id: string;
  /** The tool the agent called, as named in the conversation's `tool_use` block. */
  tool: string | undefined;
  input: unknown;
  output: string;
  isError: boolean;
}

/** The scripted agent as the Messages API: its replies, and every tool result the CLI sent back. */
export interface ScriptedMessages {
  reply: (req: RecordedRequest, index: number) => MessagesReply;
  /** Each tool result once, in the order the CLI first sent it (assert none was refused). */
  toolResults: SeenToolResult[];
}

/**
 * Renders `scripts` for Claude Code: each request gets the step its conversation is at, as a
 * `tool_use` of the CLI's own tools (`Read {file_path}`, `Write {file_path, content}`,
 * `Edit {file_path, old_string, new_string}`, `Bash {command, description}`), with paths made
 * absolute from the working directory the CLI states in its system prompt (2.1.100) or its first
 * user message (newer versions), and a fresh `tool_use` id each time (the CLI treats a repeated
 * id as the same call and loops); `{artifacts}` is the run's artifacts folder the prompt names;
 * `say` is the final text (for a `--json-schema` session, first
 * the CLI's `StructuredOutput` tool with the JSON value). A request that offers no tools (a side
 * call, or a session run with `--tools ""`) gets the script's `say` when the session is there,
 * else `sideText`.
 */
export function scriptedMessages(scripts: readonly AgentScript[], opts: { sideText?: string; model?: string } = {}): ScriptedMessages {
  const toolResults: SeenToolResult[] = [];
  const seen = new Set<string>();
  const idPrefix = `toolu_${randomBytes(4).toString('hex')}`;
  let ids = 0;
  const stream = (blocks: Block[]): MessagesReply => ({ kind: 'stream', blocks, ...(opts.model !== undefined ? { model: opts.model } : {}) });
  const reply = (req: RecordedRequest): MessagesReply => {
    const conversation = readConversation(req.body);
    for (const result of conversation.results) {
      if (seen.has(result.id)) continue;
      seen.add(result.id);
      toolResults.push(result);
    }
    const script = scriptFor(scripts, conversation.userText);
    if (script === undefined) return stream([{ type: 'text', text: opts.sideText ?? 'ok' }]);
    const requestText = `${systemText(req.body)}\n${conversation.userText}`;
    const step = withArtifacts(stepAt(script, conversation.results.length), requestText);
    const offered = toolNames(req.body);
    if ('say' in step) {
      if (offered.includes('StructuredOutput') && !conversation.calledTools.includes('StructuredOutput')) {
        return stream([{ type: 'tool_use', id: `${idPrefix}_${++ids}`, name: 'StructuredOutput', input: JSON.parse(step.say) }]);
      }
      return stream([{ type: 'text', text: step.say }]);
    }
    if (offered.length === 0) return stream([{ type: 'text', text: opts.sideText ?? 'ok' }]);
    const cwd = cwdFromRequestText(requestText);
    if (cwd === undefined) throw new Error('the scripted agent found no working directory in the request');
    return stream([{ type: 'tool_use', id: `${idPrefix}_${++ids}`, ...claudeToolCall(step, cwd) }]);
  };
  return { reply: (req) => reply(req), toolResults };
}

/** A server playing `scripts`, with what the CLI sent back; closed by the caller. */
export async function startScriptedClaudeServer(
  scripts: readonly AgentScript[],
  opts: { sideText?: string; model?: string } = {},
): Promise<AnthropicServer & { toolResults: SeenToolResult[] }> {
  const scripted = scriptedMessages(scripts, opts);
  const server = await startAnthropicServer(scripted.reply);
  return Object.assign(server, { toolResults: scripted.toolResults });
}

/** One tool step as Claude Code's own tool and arguments. */
function claudeToolCall(step: Exclude<AgentStep, { say: string }>, cwd: string): { name: string; input: Record<string, string> } {
  switch (step.tool) {
    case 'read':
      return { name: 'Read', input: { file_path: absolutePath(step.path, cwd) } };
    case 'write':
      return { name: 'Write', input: { file_path: absolutePath(step.path, cwd), content: withCwd(step.content, cwd) } };
    case 'edit':
      return { name: 'Edit', input: { file_path: absolutePath(step.path, cwd), old_string: withCwd(step.old, cwd), new_string: withCwd(step.new, cwd) } };
    case 'run':
      return { name: 'Bash', input: { command: withCwd(step.command, cwd), description: 'Run a command of the script' } };
  }
}

function toolNames(body: any): string[] {
  return Array.isArray(body?.tools) ? body.tools.map((t: any) => String(t?.name)) : [];
}

function systemText(body: any): string {
  const system = body?.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: any) => (typeof b?.text === 'string' ? b.text : '')).join('\n') : '';
}

/** The user-side text of a conversation, its tool calls and the tool results it holds. */
function readConversation(body: any): { userText: string; calledTools: string[]; results: SeenToolResult[] } {
  const calls = new Map<string, { name: string; input: unknown }>();
  const texts: string[] = [];
  const results: SeenToolResult[] = [];
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    const blocks = typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message?.content) ? message.content : [];
    for (const block of blocks) {
      if (message.role === 'assistant' && block?.type === 'tool_use') calls.set(String(block.id), { name: String(block.name), input: block.input });
      if (message.role !== 'user') continue;
      if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      if (block?.type === 'tool_result') {
        const id = String(block.tool_use_id);
        const call = calls.get(id);
        results.push({ id, tool: call?.name, input: call?.input, output: resultText(block.content), isError: block.is_error === true });
      }
    }
  }
  return { userText: texts.join('\n'), calledTools: [...calls.values()].map((c) => c.name), results };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content.map((b: any) => (typeof b?.text === 'string' ? b.text : JSON.stringify(b))).join('\n');
}
