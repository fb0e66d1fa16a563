import type { StreamPayload } from '../wire/stream-frames.js';
import { writeLine, type OutputStream } from '../terminal/context.js';
import { formatDuration, type Style } from '../terminal/format.js';

/**
 * The lines a run's agent activity makes (agent-activity.ts on the worker writes the events):
 * one line per tool call when its result comes (`tool     <node> <Tool> <summary>  ok 120ms`,
 * `error` or `refused` in place of `ok`), the agent's text as one shortened line when it moves on
 * (its next tool call, or the node's end), and its full text and thinking with `verbose`. `quiet`
 * prints none of it. Whatever the detail, it counts each node's tool results, so the node's end
 * can say when every call was refused (`refusedWarning`).
 *
 * Its own module so every command that follows a run (`workflow run`, `run follow`) renders
 * agent work the same way: feed it each frame, and ask it at each node's end.
 */

export type ActivityDetail = 'quiet' | 'normal' | 'verbose';

type WorkflowEventFrame = Extract<StreamPayload, { type: 'workflow_event' }>;

/** Longest text line shown (without --verbose), and longest tool summary. */
export const TEXT_LINE_MAX = 120;
const SUMMARY_MAX = 80;

export const agentActivityEventTypes = ['agent_text', 'agent_thinking', 'tool_called', 'tool_completed', 'provider_retrying', 'provider_rate_limited'] as const;

export interface AgentActivityLines {
  /** Handles an agent activity frame (true), or leaves the frame to the caller (false). */
  print(frame: StreamPayload): boolean;
  /** A node (re)started: its counts start again. */
  nodeStarted(node: string): void;
  /** A node ended: prints its pending text; answers a warning when every tool call was refused. */
  nodeEnded(node: string): string | undefined;
}

interface NodeActivity {
  text: string;
  thinking: string;
  results: number;
  refused: number;
  failed: number;
  spillShown: boolean;
}

export function createAgentActivityLines(opts: { out: OutputStream; style: Style; detail: ActivityDetail }): AgentActivityLines {
  const { out, style, detail } = opts;
  const nodes = new Map<string, NodeActivity>();
  const nodeOf = (name: string): NodeActivity => {
    let node = nodes.get(name);
    if (node === undefined) {
      node = { text: '', thinking: '', results: 0, refused: 0, failed: 0, spillShown: false };
      nodes.set(name, node);
    }
    return node;
  };
  const pad = (text: string) => text.padEnd(8);

  const flushText = (name: string, node: NodeActivity) => {
    if (detail === 'verbose' && node.thinking.trim() !== '') {
      writeLine(out, `${style.dim(pad('thinks'))} ${name}`);
      for (const line of node.thinking.trimEnd().split('\n')) writeLine(out, style.dim(`    ${line}`));
    }
    node.thinking = '';
    const text = node.text.trim();
    node.text = '';
    if (text === '' || detail === 'quiet') return;
    if (detail === 'verbose') {
      writeLine(out, `${style.dim(pad('says'))} ${name}`);
      for (const line of text.split('\n')) writeLine(out, `    ${line}`);
      return;
    }
    writeLine(out, `${style.dim(pad('says'))} ${name} ${shorten(text, TEXT_LINE_MAX)}`);
  };

  const showSpill = (name: string, node: NodeActivity, data: Record<string, unknown>) => {
    const persisted = data.persisted as { spillPath?: unknown } | undefined;
    if (detail === 'quiet' || node.spillShown || typeof persisted?.spillPath !== 'string') return;
    node.spillShown = true;
    writeLine(out, style.dim(`${pad('')} ${name}: what its events leave out is in ${persisted.spillPath}`));
  };

  return {
    print(frame) {
      if (frame.type !== 'workflow_event' || !(agentActivityEventTypes as readonly string[]).includes(frame.eventType)) return false;
      const name = frame.stepName ?? (typeof frame.data.node_id === 'string' ? frame.data.node_id : '');
      const node = nodeOf(name);
      const data = frame.data;
      switch (frame.eventType as (typeof agentActivityEventTypes)[number]) {
        case 'agent_text':
          node.text += str(data.text);
          break;
        case 'agent_thinking':
          node.thinking += str(data.text);
          break;
        case 'tool_called':
          flushText(name, node);
          // A call without an id never gets its result paired with it: shown as it is made.
          if (data.tool_call_id === undefined && detail !== 'quiet') writeLine(out, toolLine(style, name, data, undefined));
          break;
        case 'tool_completed':
          flushText(name, node);
          node.results += 1;
          if (data.refused === true) node.refused += 1;
          else if (data.is_error === true) node.failed += 1;
          if (detail !== 'quiet') writeLine(out, toolLine(style, name, data, outcomeOf(data)));
          break;
        case 'provider_retrying':
        case 'provider_rate_limited':
          // The provider waits and tries again: shown even with --quiet, it explains a silence.
          writeLine(out, `${style.yellow(pad('waits'))} ${name} ${str(data.message)}`);
          break;
      }
      showSpill(name, node, data);
      return true;
    },
    nodeStarted(name) {
      nodes.delete(name);
    },
    nodeEnded(name) {
      const node = nodes.get(name);
      if (node === undefined) return undefined;
      flushText(name, node);
      nodes.delete(name);
      return refusedWarning(node.results, node.refused);
    },
  };
}

/** The warning for a node whose every tool call was refused; undefined otherwise. */
export function refusedWarning(total: number, refused: number): string | undefined {
  if (total === 0 || refused < total) return undefined;
  return total === 1 ? 'its one tool call was refused' : `all ${total} tool calls were refused`;
}

type Outcome = 'ok' | 'error' | 'refused';

function outcomeOf(data: Record<string, unknown>): Outcome {
  if (data.refused === true) return 'refused';
  return data.is_error === true ? 'error' : 'ok';
}

function toolLine(style: Style, node: string, data: Record<string, unknown>, outcome: Outcome | undefined): string {
  const tool = str(data.tool_name) || 'tool';
  const summary = shorten(str(data.summary), SUMMARY_MAX);
  const took = typeof data.duration_ms === 'number' ? ` ${style.dim(formatDuration(data.duration_ms))}` : '';
  const said = outcome === undefined ? '' : ` ${outcome === 'ok' ? style.green('ok') : outcome === 'refused' ? style.yellow('refused') : style.red('error')}${took}`;
  return `${style.dim('tool'.padEnd(8))} ${node} ${style.bold(tool)}${summary !== '' ? ` ${summary}` : ''}${said}`;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The text on one line, whitespace folded, cut with `…`. */
function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
