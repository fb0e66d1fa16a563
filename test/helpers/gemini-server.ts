import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { absolutePath, cwdFromRequestText, withArtifacts, withCwd, type AgentScript, type AgentStep } from './agent-script.js';

/**
 * A local server that speaks the Gemini API's streaming wire format
 * (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`: `data: {GenerateContentResponse}`
 * events with `candidates[].content.parts[].text`, `finishReason`, `usageMetadata` and
 * `modelVersion`), or the API's error bodies (`{ error: { code, message, status } }`) with their
 * status and headers. Any other model call (`:generateContent`, the CLI's own checks) gets a short
 * valid JSON answer. The real Gemini CLI talks to it in tests.
 *
 * `geminiAgent` renders the scripted coding agent (agent-script.ts) in this format: each step a
 * `functionCall` part naming the CLI's own tool and parameters, as its request declares them.
 */

export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

export type GeminiReply =
  | { kind: 'stream'; modelVersion?: string; deltas: string[]; usage?: GeminiUsage }
  /** A model turn that asks the CLI to run one tool. */
  | { kind: 'call'; name: string; args: Record<string, unknown> }
  | { kind: 'error'; status: number; googleStatus: string; message: string; headers?: Record<string, string> }
  | { kind: 'hang' };

export interface GeminiRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface GeminiServer {
  url: string;
  /** Every `:streamGenerateContent` request, in order. */
  requests: GeminiRequest[];
  close(): Promise<void>;
}

export async function startGeminiServer(reply: (req: GeminiRequest, index: number) => GeminiReply): Promise<GeminiServer> {
  const requests: GeminiRequest[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: any;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        body = { raw };
      }
      if (!path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '{}' }] }, finishReason: 'STOP', index: 0 }] }));
        return;
      }
      const recorded = { path, headers: req.headers, body };
      requests.push(recorded);
      answer(res, reply(recorded, requests.length - 1));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, reply: GeminiReply): void {
  if (reply.kind === 'error') {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ error: { code: reply.status, message: reply.message, status: reply.googleStatus } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (reply.kind === 'hang') return void res.flushHeaders();
  const modelVersion = reply.kind === 'stream' ? (reply.modelVersion ?? 'gemini-test') : 'gemini-test';
  const send = (event: unknown) => res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  if (reply.kind === 'call') {
    send({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: reply.name, args: reply.args } }] }, index: 0 }], modelVersion });
  } else {
    for (const text of reply.deltas) send({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], modelVersion });
  }
  send({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: (reply.kind === 'stream' ? reply.usage : undefined) ?? { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
    modelVersion,
  });
  res.end();
}

/** The parts of a request's conversation (its `contents`), with the role of each. */
function partsOf(req: GeminiRequest): { role: string; part: any }[] {
  const contents: any[] = Array.isArray(req.body?.contents) ? req.body.contents : [];
  return contents.flatMap((c) => (Array.isArray(c?.parts) ? c.parts.map((part: any) => ({ role: String(c.role ?? ''), part })) : []));
}

/** The names of the tools a request offers the model (its `functionDeclarations`). */
export function declaredTools(req: GeminiRequest): string[] {
  return declarations(req).map((d) => String(d.name));
}

function declarations(req: GeminiRequest): any[] {
  const tools: any[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  return tools.flatMap((t) => (Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []));
}

/** What the CLI sent back for each tool call so far: `{ name, response }`, in order. */
export function functionResponses(req: GeminiRequest): { name: string; response: Record<string, unknown> }[] {
  return partsOf(req)
    .filter(({ part }) => part?.functionResponse)
    .map(({ part }) => ({ name: String(part.functionResponse.name), response: part.functionResponse.response ?? {} }));
}

/** The system instruction's text. */
export function systemText(req: GeminiRequest): string {
  const parts: any[] = req.body?.systemInstruction?.parts ?? [];
  return parts.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
}

/**
 * The directory the CLI names first under "Workspace Directories" in its session context: its
 * working directory.
 */
export function geminiCwd(req: GeminiRequest): string | undefined {
  const text = partsOf(req).filter(({ role }) => role === 'user').map(({ part }) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return /Workspace Directories:\*{0,2}\s*\n\s*-\s*(\/[^\n]*)/.exec(text)?.[1]?.trim() ?? cwdFromRequestText(text);
}

/** The CLI's tool for each scripted step, and its parameter names (from its declaration when it offers the tool). */
const toolOf = { read: 'read_file', write: 'write_file', edit: 'replace', run: 'run_shell_command' } as const;

/** A step of the scripted agent, or a call of any tool the CLI knows by its own name and arguments. */
export type GeminiStep = AgentStep | { call: string; args: Record<string, unknown> };

/** A session of the scripted agent with Gemini-only steps. */
export interface GeminiScript {
  match?: RegExp;
  steps: GeminiStep[];
}

/**
 * The scripted agent in the Gemini API's format: the step for the number of tool results in the
 * conversation, as a `functionCall` of the CLI's tool (called by name even when the request does
 * not offer it, as a model might: the CLI then refuses it), or the final text.
 */
export function geminiAgent(scripts: readonly (AgentScript | GeminiScript)[]): (req: GeminiRequest) => GeminiReply {
  return (req) => {
    const userText = partsOf(req).filter(({ role }) => role === 'user').map(({ part }) => part?.text ?? '').join('\n');
    // agent-script.ts's choice of script and step, over the wider step type.
    const script = scripts.find((s) => s.match === undefined || s.match.test(userText));
    if (!script || script.steps.length === 0) return { kind: 'stream', deltas: ['no script matches this conversation'] };
    const step: GeminiStep = withArtifacts(script.steps[Math.min(functionResponses(req).length, script.steps.length - 1)]!, userText);
    if ('say' in step) return { kind: 'stream', deltas: [step.say] };
    if ('call' in step) return { kind: 'call', name: step.call, args: step.args };
    const cwd = geminiCwd(req) ?? '/';
    const name = toolOf[step.tool];
    const declared = declarations(req).find((d) => d.name === name);
    const params = Object.keys((declared?.parametersJsonSchema ?? declared?.parameters)?.properties ?? {});
    const pathKey = params.find((p) => p === 'file_path' || p === 'absolute_path') ?? 'file_path';
    switch (step.tool) {
      case 'read':
        return { kind: 'call', name, args: { [pathKey]: absolutePath(step.path, cwd) } };
      case 'write':
        return { kind: 'call', name, args: { [pathKey]: absolutePath(step.path, cwd), content: withCwd(step.content, cwd) } };
      case 'edit':
        return {
          kind: 'call',
          name,
          args: {
            [pathKey]: absolutePath(step.path, cwd),
            old_string: withCwd(step.old, cwd),
            new_string: withCwd(step.new, cwd),
            // The CLI's `replace` requires a few words on what the edit does.
            ...(params.includes('instruction') || !declared ? { instruction: 'Apply the scripted edit.' } : {}),
          },
        };
      case 'run':
        return { kind: 'call', name, args: { command: withCwd(step.command, cwd) } };
    }
  };
}
