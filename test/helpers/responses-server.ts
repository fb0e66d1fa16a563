import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { absolutePath, cwdFromRequestText, scriptFor, stepAt, withArtifacts, withCwd, type AgentScript, type AgentStep } from './agent-script.js';

/**
 * A local server that speaks the OpenAI Responses API's streaming wire format
 * (`POST /v1/responses` with `stream: true`): named SSE events `response.created`,
 * `response.in_progress`, `response.output_item.added`, `response.content_part.added`,
 * `response.output_text.delta`, `response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done` and `response.completed` (with `usage`), each `data:` line a JSON
 * object carrying its own `type` and `sequence_number`; or the API's error bodies
 * (`{ error: { message, type, param, code } }`) with their status and headers (`Retry-After`);
 * or a `response.failed` event inside a 200 stream. The real Codex CLI talks to it in tests.
 */

/** Usage as the API reports it; a key left out is not sent at all. */
export interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number };
  total_tokens?: number;
}

export type ResponsesReply =
  | {
      kind: 'stream';
      model?: string;
      deltas: string[];
      /** Sent in `response.completed`; `null`: the response carries no usage at all. */
      usage?: ResponsesUsage | null;
      /** Send `response.created` and the first delta, then nothing (the idle watchdog's case). */
      stallAfterFirst?: boolean;
    }
  | { kind: 'error'; status: number; type?: string; code?: string; message: string; headers?: Record<string, string>; fields?: Record<string, unknown> }
  /** A 200 stream that reports `response.failed` with this error. */
  | { kind: 'failed'; code: string; message: string }
  /** Headers are sent, then nothing: no event ever arrives. */
  | { kind: 'hang' }
  /** The model asks for tools: one output item per call, then `response.completed`. */
  | { kind: 'calls'; calls: ResponsesCall[] };

/**
 * A tool call as the Responses API streams it: a `function_call` (JSON arguments) or a
 * `custom_tool_call` (a freeform tool such as `apply_patch`, whose input is plain text).
 */
export type ResponsesCall =
  /** `namespace`: the tool sits in a namespace of the request's tools (Codex puts each MCP server's tools in one). */
  | { type: 'function'; name: string; namespace?: string; arguments: Record<string, unknown> }
  | { type: 'custom'; name: string; input: string };

export interface ResponsesRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface ResponsesServer {
  url: string;
  /** Every POST to `/v1/responses`, in order. */
  requests: ResponsesRequest[];
  close(): Promise<void>;
}

export interface ResponsesServerOptions {
  /**
   * Send each stream zstd-encoded when the request's `accept-encoding` names zstd, as a server (or
   * the CDN in front of it) that honours the header does. Stored blocks: valid zstd, no compressor needed.
   */
  zstdWhenAccepted?: boolean;
}

export async function startResponsesServer(
  reply: (req: ResponsesRequest, index: number) => ResponsesReply,
  opts: ResponsesServerOptions = {},
): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !path.endsWith('/responses')) {
        // Anything else a client asks for (a model list) gets an empty valid answer.
        res.writeHead(path.endsWith('/models') ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(path.endsWith('/models') ? { object: 'list', data: [], models: [] } : { error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      const recorded: ResponsesRequest = { path, headers: req.headers, body: safeJson(raw) };
      requests.push(recorded);
      const zstd = opts.zstdWhenAccepted === true && /\bzstd\b/.test(String(req.headers['accept-encoding'] ?? ''));
      answer(res, reply(recorded, requests.length - 1), typeof recorded.body?.model === 'string' ? recorded.body.model : 'gpt-test', zstd);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return { raw };
  }
}

let counter = 0;

const defaultUsage: ResponsesUsage = { input_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };

/** The output item of one call; `call_id` is what the client's `*_output` item answers. */
function callItem(call: ResponsesCall, id: string): Record<string, unknown> {
  return call.type === 'function'
    ? { id: `fc_${id}`, type: 'function_call', status: 'completed', call_id: `call_${id}`, name: call.name, ...(call.namespace !== undefined ? { namespace: call.namespace } : {}), arguments: JSON.stringify(call.arguments) }
    : { id: `ctc_${id}`, type: 'custom_tool_call', status: 'completed', call_id: `call_${id}`, name: call.name, input: call.input };
}

function answer(res: ServerResponse, reply: ResponsesReply, requestedModel: string, zstd: boolean): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'invalid_request_error', param: null, code: reply.code ?? null, ...reply.fields } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...(zstd ? { 'content-encoding': 'zstd' } : {}) });
  if (reply.kind === 'hang') return void res.flushHeaders();
  const body: Buffer[] = [];
  const write = (text: string) => (zstd ? body.push(Buffer.from(text)) : res.write(text));
  const end = () => (zstd ? res.end(zstdStored(Buffer.concat(body))) : res.end());
  const n = ++counter;
  const responseId = `resp_test${n}`;
  const itemId = `msg_test${n}`;
  const model = reply.kind === 'stream' ? (reply.model ?? requestedModel) : requestedModel;
  let seq = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    model,
    output: [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: null,
    ...extra,
  });
  send('response.created', { response: response('in_progress') });
  send('response.in_progress', { response: response('in_progress') });
  if (reply.kind === 'failed') {
    send('response.failed', { response: response('failed', { error: { code: reply.code, message: reply.message } }) });
    end();
    return;
  }
  if (reply.kind === 'calls') {
    const items = reply.calls.map((call, i) => callItem(call, `${n}_${i}`));
    items.forEach((item, i) => {
      send('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', ...('arguments' in item ? { arguments: '' } : { input: '' }) } });
      send('response.output_item.done', { output_index: i, item });
    });
    send('response.completed', { response: response('completed', { output: items, usage: defaultUsage }) });
    end();
    return;
  }
  send('response.output_item.added', { output_index: 0, item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
  send('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  const deltas = reply.stallAfterFirst ? reply.deltas.slice(0, 1) : reply.deltas;
  for (const delta of deltas) send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] });
  if (reply.stallAfterFirst) return;
  const text = reply.deltas.join('');
  const part = { type: 'output_text', text, annotations: [], logprobs: [] };
  const item = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part] };
  send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] });
  send('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part });
  send('response.output_item.done', { output_index: 0, item });
  const usage = reply.usage === null ? null : (reply.usage ?? defaultUsage);
  send('response.completed', { response: response('completed', { output: [item], usage }) });
  end();
}

/** `data` as one zstd frame of stored (uncompressed) blocks of at most 128 KiB (RFC 8878). */
function zstdStored(data: Buffer): Buffer {
  // Magic number, then a frame header descriptor with no flags and a 128 KiB window descriptor.
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])];
  const max = 128 * 1024;
  let offset = 0;
  do {
    const block = data.subarray(offset, offset + max);
    offset += block.length;
    // Block header, little-endian: last-block bit, block type 0 (raw), 21-bit size.
    const header = (block.length << 3) | (offset >= data.length ? 1 : 0);
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), block);
  } while (offset < data.length);
  return Buffer.concat(parts);
}

/** What the client sent back for each tool call of the conversation (`function_call_output` / `custom_tool_call_output`). */
export interface ResponsesToolOutput {
  callId: string;
  output: string;
}

/** The tool outputs a request carries, in order. */
export function toolOutputs(req: ResponsesRequest): ResponsesToolOutput[] {
  const input: any[] = Array.isArray(req.body?.input) ? req.body.input : [];
  return input
    .filter((item) => item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output')
    .map((item) => ({ callId: String(item.call_id), output: outputText(item.output) }));
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return JSON.stringify(output ?? '');
}

/**
 * The scripted agent (agent-script.ts) as a Codex model: `read` is `cat`, `run` the command, both
 * through the shell tool Codex offers (`exec_command`, or `shell`'s argv); `write` and `edit` are
 * patches in Codex's grammar (`*** Add File:`, `*** Update File:` with an `@@` hunk) given to the
 * `apply_patch` tool when the request offers one, else run as `apply_patch` in the shell, which
 * Codex intercepts and applies itself (it checks the patch against its sandbox policy as it would
 * the tool's). The working directory is the `<cwd>` of Codex's environment context.
 */
export function agentReplies(scripts: readonly AgentScript[]): (req: ResponsesRequest) => ResponsesReply {
  return (req) => {
    const input: any[] = Array.isArray(req.body?.input) ? req.body.input : [];
    const userText = input
      .filter((item) => item?.role === 'user')
      .flatMap((item) => (Array.isArray(item.content) ? item.content : []))
      .map((part: any) => String(part?.text ?? ''))
      .join('\n');
    const script = scriptFor(scripts, userText);
    if (!script) return { kind: 'stream', deltas: ['no script matches this conversation'] };
    const step = withArtifacts(stepAt(script, toolOutputs(req).length), userText);
    if ('say' in step) return { kind: 'stream', deltas: [step.say] };
    const cwd = cwdFromRequestText(userText) ?? '/';
    return { kind: 'calls', calls: [renderStep(step, cwd, offeredTools(req))] };
  };
}

type ToolStep = Exclude<AgentStep, { say: string }>;

function offeredTools(req: ResponsesRequest): Map<string, string> {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  return new Map(tools.filter((t) => typeof t?.name === 'string').map((t) => [t.name as string, String(t.type)]));
}

function renderStep(step: ToolStep, cwd: string, tools: Map<string, string>): ResponsesCall {
  if (step.tool === 'read') return shellCall(`cat -- ${shellQuote(absolutePath(step.path, cwd))}`, cwd, tools);
  if (step.tool === 'run') return shellCall(withCwd(step.command, cwd), cwd, tools);
  const patch = step.tool === 'write' ? addFilePatch(absolutePath(step.path, cwd), withCwd(step.content, cwd)) : updateFilePatch(absolutePath(step.path, cwd), step.old, step.new);
  const applyPatch = tools.get('apply_patch');
  if (applyPatch === 'custom') return { type: 'custom', name: 'apply_patch', input: patch };
  if (applyPatch === 'function') return { type: 'function', name: 'apply_patch', arguments: { input: patch } };
  return shellCall(`apply_patch <<'PATCH'\n${patch}PATCH\n`, cwd, tools);
}

function shellCall(command: string, cwd: string, tools: Map<string, string>): ResponsesCall {
  if (tools.has('exec_command')) return { type: 'function', name: 'exec_command', arguments: { cmd: command, workdir: cwd } };
  return { type: 'function', name: 'shell', arguments: { command: ['bash', '-lc', command], workdir: cwd } };
}

/** A patch that creates `path` with `content`. */
export function addFilePatch(path: string, content: string): string {
  return `*** Begin Patch\n*** Add File: ${path}\n${patchLines(content, '+')}*** End Patch\n`;
}

/** A patch that replaces the lines `old` with `next` in `path`. */
export function updateFilePatch(path: string, old: string, next: string): string {
  return `*** Begin Patch\n*** Update File: ${path}\n@@\n${patchLines(old, '-')}${patchLines(next, '+')}*** End Patch\n`;
}

function patchLines(text: string, prefix: string): string {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  return lines.map((line) => `${prefix}${line}\n`).join('');
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
