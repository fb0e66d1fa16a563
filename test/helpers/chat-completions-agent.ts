import { absolutePath, cwdFromRequestText, withArtifacts, withCwd, type AgentScript, type AgentStep } from './agent-script.js';
import type { ChatReply, ChatRequest } from './openai-server.js';

/**
 * The scripted agent of agent-script.ts rendered in the Chat Completions wire format, for the
 * CLIs that talk to a Chat Completions server (OpenCode, Pi, Copilot): each answer is the next
 * step as a `tool_calls` reply, with the tool and argument names of the CLI that sent the request.
 *
 * Which CLI sent it is read from the request's own tool list: each vocabulary below says how its
 * CLI names the abstract steps, and the one whose tools the request offers (by name, with the
 * required arguments the vocabulary fills) renders the reply. A request that offers none of them
 * (a read-only session, `allowed_tools: []`) is rendered with `fallback`, so a test can still
 * make the model ask for a tool it was not given. Arguments an offered tool does not declare are
 * left out (a CLI version that dropped one). Another CLI plugs in with its own vocabulary.
 *
 * Every `role: tool` message the CLI sends back is recorded once (by call id), so a test can
 * assert what the tools answered: that none was refused, or that each was.
 */

/** One tool call in the CLI's own names. */
export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

/** How one CLI names the abstract steps (paths arrive absolute, `{cwd}` already replaced). */
export interface ToolVocabulary {
  id: string;
  read(path: string): ToolCallSpec;
  write(path: string, content: string): ToolCallSpec;
  edit(path: string, oldText: string, newText: string): ToolCallSpec;
  run(command: string): ToolCallSpec;
}

/** OpenCode's built-in tools (read, write, edit, bash), as its requests declare them. */
export const opencodeVocabulary: ToolVocabulary = {
  id: 'opencode',
  read: (filePath) => ({ name: 'read', arguments: { filePath } }),
  write: (filePath, content) => ({ name: 'write', arguments: { filePath, content } }),
  edit: (filePath, oldString, newString) => ({ name: 'edit', arguments: { filePath, oldString, newString } }),
  run: (command) => ({ name: 'bash', arguments: { command, description: 'Run a command' } }),
};

/** Pi's built-in tools (`pi --help`: read, bash, edit, write; read_only offers read, grep, find, ls). */
export const piVocabulary: ToolVocabulary = {
  id: 'pi',
  read: (path) => ({ name: 'read', arguments: { path } }),
  write: (path, content) => ({ name: 'write', arguments: { path, content } }),
  edit: (path, oldText, newText) => ({ name: 'edit', arguments: { path, edits: [{ oldText, newText }] } }),
  run: (command) => ({ name: 'bash', arguments: { command } }),
};

/**
 * The Copilot CLI's tools for a model it has no tuned tool set for (`view`, `create`, `edit`,
 * `bash`; a GPT model id is offered `apply_patch` instead, which this vocabulary does not speak).
 */
export const copilotVocabulary: ToolVocabulary = {
  id: 'copilot',
  read: (path) => ({ name: 'view', arguments: { path } }),
  write: (path, content) => ({ name: 'create', arguments: { path, file_text: content } }),
  edit: (path, oldStr, newStr) => ({ name: 'edit', arguments: { path, old_str: oldStr, new_str: newStr } }),
  run: (command) => ({ name: 'bash', arguments: { command, description: 'Run a command' } }),
};

/** A step beyond the abstract ones: a tool called by its own name (an MCP tool, a sub-agent launch). */
export type ChatAgentStep = AgentStep | { call: string; args: Record<string, unknown> };

/** A session of `ChatAgentStep`s; `match` is tried on the request's system and user text. */
export interface ChatAgentScript extends Omit<AgentScript, 'steps'> {
  steps: ChatAgentStep[];
}

/** A `role: tool` message the CLI sent back, with the tool call it answers. */
export interface RecordedToolResult {
  callId: string;
  /** The tool the reply had called (as named in the wire). */
  tool: string | undefined;
  content: string;
}

export interface ChatCompletionsAgent {
  /** The reply function for `startOpenAiServer`. */
  reply: (req: ChatRequest, index: number) => ChatReply;
  /** Every tool call the agent made, in order. */
  calls: (ToolCallSpec & { id: string })[];
  /** Every tool result the CLI sent back, in order, each once. */
  toolResults: RecordedToolResult[];
}

export interface ChatAgentOptions {
  /** The vocabularies to choose from (default: every one this file knows). */
  vocabularies?: readonly ToolVocabulary[];
  /** The vocabulary for a request that offers none of them (default: the only one given). */
  fallback?: ToolVocabulary;
}

interface OfferedTool {
  properties: Set<string>;
  required: string[];
}

/** A Chat Completions server's reply function that plays `scripts`. */
export function chatCompletionsAgent(scripts: readonly ChatAgentScript[], opts: ChatAgentOptions = {}): ChatCompletionsAgent {
  const vocabularies = opts.vocabularies ?? [opencodeVocabulary];
  const fallback = opts.fallback ?? (vocabularies.length === 1 ? vocabularies[0] : undefined);
  const toolResults: RecordedToolResult[] = [];
  const calls: ChatCompletionsAgent['calls'] = [];
  const seen = new Set<string>();
  const reply = (req: ChatRequest): ChatReply => {
    const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
    for (const m of messages) {
      if (m?.role !== 'tool' || typeof m.tool_call_id !== 'string' || seen.has(m.tool_call_id)) continue;
      seen.add(m.tool_call_id);
      toolResults.push({ callId: m.tool_call_id, tool: calls.find((c) => c.id === m.tool_call_id)?.name, content: textOf(m.content) });
    }
    const text = messages.filter((m) => m?.role === 'system' || m?.role === 'user').map((m) => textOf(m.content)).join('\n');
    const script = scripts.find((s) => s.match === undefined || s.match.test(text));
    if (!script) return { kind: 'stream', deltas: ['(no script matches this conversation)'] };
    if (script.steps.length === 0) throw new Error('an agent script needs at least one step');
    const done = messages.filter((m) => m?.role === 'tool').length;
    const step = withArtifacts(script.steps[Math.min(done, script.steps.length - 1)]!, text);
    if ('say' in step) return { kind: 'stream', deltas: [step.say] };
    const offered = offeredTools(req.body?.tools);
    const cwd = cwdFromRequestText(text) ?? '/';
    const spec = 'call' in step ? { name: step.call, arguments: substitute(step.args, cwd) } : render(step, chooseVocabulary(vocabularies, offered, cwd, fallback), cwd);
    const id = `call_${calls.length + 1}`;
    calls.push({ id, ...spec });
    return { kind: 'stream', deltas: [], toolCalls: [{ id, name: spec.name, arguments: JSON.stringify(fitted(spec, offered)) }] };
  };
  return { reply, calls, toolResults };
}

function render(step: Exclude<AgentStep, { say: string }>, vocabulary: ToolVocabulary, cwd: string): ToolCallSpec {
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

/**
 * The vocabulary whose calls the request's tools accept best: a sample of each step counts when
 * the request offers a tool of that name whose required arguments the sample fills.
 */
function chooseVocabulary(vocabularies: readonly ToolVocabulary[], offered: Map<string, OfferedTool>, cwd: string, fallback: ToolVocabulary | undefined): ToolVocabulary {
  let best: { vocabulary: ToolVocabulary; score: number } | undefined;
  for (const vocabulary of vocabularies) {
    const samples = [vocabulary.read(`${cwd}/a`), vocabulary.write(`${cwd}/a`, 'x'), vocabulary.edit(`${cwd}/a`, 'x', 'y'), vocabulary.run('true')];
    const score = samples.filter((s) => {
      const tool = offered.get(s.name);
      return tool !== undefined && tool.required.every((r) => r in s.arguments);
    }).length;
    if (score > 0 && (best === undefined || score > best.score)) best = { vocabulary, score };
  }
  const chosen = best?.vocabulary ?? fallback;
  if (!chosen) throw new Error(`no tool vocabulary fits the offered tools (${[...offered.keys()].join(', ') || 'none'}) and no fallback was given`);
  return chosen;
}

/** The call's arguments, less those an offered tool does not declare. */
function fitted(spec: ToolCallSpec, offered: Map<string, OfferedTool>): Record<string, unknown> {
  const tool = offered.get(spec.name);
  if (!tool || tool.properties.size === 0) return spec.arguments;
  return Object.fromEntries(Object.entries(spec.arguments).filter(([k]) => tool.properties.has(k)));
}

function offeredTools(tools: unknown): Map<string, OfferedTool> {
  const offered = new Map<string, OfferedTool>();
  if (!Array.isArray(tools)) return offered;
  for (const t of tools) {
    const fn = t?.function;
    if (typeof fn?.name !== 'string') continue;
    const params = fn.parameters ?? {};
    offered.set(fn.name, {
      properties: new Set(Object.keys(params.properties ?? {})),
      required: Array.isArray(params.required) ? params.required.filter((r: unknown): r is string => typeof r === 'string') : [],
    });
  }
  return offered;
}

/** The names of the function tools a request offers, in its order. */
export function offeredToolNames(body: any): string[] {
  return (Array.isArray(body?.tools) ? body.tools : []).map((t: any) => t?.function?.name ?? t?.custom?.name).filter((n: unknown): n is string => typeof n === 'string');
}

function substitute(args: Record<string, unknown>, cwd: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(args), (_k, v) => (typeof v === 'string' ? withCwd(v, cwd) : v));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  return '';
}
