import { absolutePath, cwdFromRequestText, withCwd, type AgentStep } from './agent-script.js';
import type { ChatReply, ChatRequest } from './openai-server.js';

/**
 * The scripted agent (agent-script.ts) rendered as Chat Completions answers, for the CLIs that talk
 * to a Chat Completions server (Pi, Copilot). Each CLI names its tools and their arguments its own
 * way: a vocabulary maps the abstract steps (`read`, `write`, `edit`, `run`) onto one CLI's tool
 * calls. The vocabulary is chosen from the tools the request offers (the first whose tool names
 * it holds); a step whose tool the request does not offer (a read-only session) is still called,
 * as a model would, so the CLI itself must refuse it. Paths are made absolute from the working
 * directory the CLI states in its system prompt.
 */

export interface ChatToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ChatToolVocabulary {
  /** For messages: `Pi`. */
  label: string;
  /** Tool names only this CLI offers: they mark a request as this CLI's. */
  marks: readonly string[];
  read(path: string): ChatToolCall;
  write(path: string, content: string): ChatToolCall;
  edit(path: string, old: string, replacement: string): ChatToolCall;
  run(command: string): ChatToolCall;
}

/** Pi's built-in tools (`pi --help`: read, bash, edit, write). */
export const piVocabulary: ChatToolVocabulary = {
  label: 'Pi',
  marks: ['read', 'write', 'ls', 'find'],
  read: (path) => ({ name: 'read', arguments: { path } }),
  write: (path, content) => ({ name: 'write', arguments: { path, content } }),
  edit: (path, old, replacement) => ({ name: 'edit', arguments: { path, edits: [{ oldText: old, newText: replacement }] } }),
  run: (command) => ({ name: 'bash', arguments: { command } }),
};

/**
 * The Copilot CLI's tools for a model it has no tuned tool set for (`view`, `create`, `edit`,
 * `bash`; a GPT model id is offered `apply_patch` instead, which this vocabulary does not speak).
 */
export const copilotVocabulary: ChatToolVocabulary = {
  label: 'Copilot',
  marks: ['view', 'create'],
  read: (path) => ({ name: 'view', arguments: { path } }),
  write: (path, content) => ({ name: 'create', arguments: { path, file_text: content } }),
  edit: (path, old, replacement) => ({ name: 'edit', arguments: { path, old_str: old, new_str: replacement } }),
  run: (command) => ({ name: 'bash', arguments: { command, description: 'Run a command' } }),
};

/** A step of the agent script, or a call of a tool no vocabulary names (an MCP server's tool), as is. */
export type ChatStep = AgentStep | { call: string; input: Record<string, unknown> };

/** An agent script (agent-script.ts) whose steps may also be raw calls. */
export interface ChatScript {
  match?: RegExp;
  steps: ChatStep[];
}

/** A tool result the CLI sent back to the model (a `role: tool` message). */
export interface ChatToolResult {
  toolCallId: string;
  /** The tool the scripted agent called under that id. */
  name: string;
  content: string;
}

export interface ChatAgent {
  /** The server's reply function (`startOpenAiServer(agent.reply)`). */
  reply: (req: ChatRequest, index: number) => ChatReply;
  /** Every tool call the agent made, in order. */
  calls: (ChatToolCall & { id: string })[];
  /** Every tool result the CLI sent back, once each, in order. */
  results: ChatToolResult[];
}

/** A scripted agent speaking whichever of `vocabularies` the request's tools mark (the first when none offers tools). */
export function chatAgent(scripts: readonly ChatScript[], vocabularies: readonly ChatToolVocabulary[]): ChatAgent {
  const calls: ChatAgent['calls'] = [];
  const results: ChatToolResult[] = [];
  const reply = (req: ChatRequest): ChatReply => {
    const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
    recordResults(messages, calls, results);
    const conversation = textOf(messages, ['user']);
    const script = scripts.find((s) => s.match === undefined || s.match.test(conversation));
    if (!script || script.steps.length === 0) return { kind: 'stream', deltas: ['(no script matches this conversation)'] };
    // As agent-script.ts's stepAt: chosen by the tool results so far, the last step repeating.
    const step = script.steps[Math.min(messages.filter((m) => m.role === 'tool').length, script.steps.length - 1)]!;
    if ('say' in step) return { kind: 'stream', deltas: [step.say] };
    let call: ChatToolCall;
    if ('call' in step) {
      call = { name: step.call, arguments: step.input };
    } else {
      const cwd = cwdFromRequestText(textOf(messages, ['system', 'developer']));
      if (cwd === undefined) return { kind: 'error', status: 500, message: 'scripted agent: the request states no working directory' };
      call = render(step, vocabularyFor(req.body, vocabularies), cwd);
    }
    const id = `call_${calls.length + 1}`;
    calls.push({ id, ...call });
    return { kind: 'stream', deltas: [], toolCalls: [{ id, name: call.name, arguments: JSON.stringify(call.arguments) }] };
  };
  return { reply, calls, results };
}

/** The names of the function tools a request offers. */
export function offeredTools(body: any): string[] {
  return (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => t?.function?.name ?? t?.custom?.name).filter((n: unknown): n is string => typeof n === 'string');
}

function vocabularyFor(body: any, vocabularies: readonly ChatToolVocabulary[]): ChatToolVocabulary {
  const offered = new Set(offeredTools(body));
  return vocabularies.find((v) => v.marks.some((m) => offered.has(m))) ?? vocabularies[0]!;
}

function render(step: Exclude<AgentStep, { say: string }>, vocabulary: ChatToolVocabulary, cwd: string): ChatToolCall {
  switch (step.tool) {
    case 'read':
      return vocabulary.read(absolutePath(step.path, cwd));
    case 'write':
      return vocabulary.write(absolutePath(step.path, cwd), withCwd(step.content, cwd));
    case 'edit':
      return vocabulary.edit(absolutePath(step.path, cwd), withCwd(step.old, cwd), withCwd(step.new, cwd));
    case 'run':
      return vocabulary.run(withCwd(step.command, cwd));
  }
}

function textOf(messages: any[], roles: readonly string[]): string {
  return messages
    .filter((m) => roles.includes(m?.role))
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: any) => p?.text ?? '').join('\n') : ''))
    .join('\n');
}

function recordResults(messages: any[], calls: ChatAgent['calls'], results: ChatToolResult[]): void {
  for (const m of messages) {
    if (m?.role !== 'tool' || typeof m.tool_call_id !== 'string') continue;
    if (results.some((r) => r.toolCallId === m.tool_call_id)) continue;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    results.push({ toolCallId: m.tool_call_id, name: calls.find((c) => c.id === m.tool_call_id)?.name ?? '?', content });
  }
}
