import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileNameFor } from '../../../shared/file-name.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../../shared/private-files.js';
import type { NewRunEvent } from '../../../store/schemas/event.js';
import type { Store } from '../../../store/store.js';
import type { AgentAttemptTask } from './agent-task.js';
import type { ProviderChunk } from '../../providers/provider-adapter.js';
import { chunkEvent, type ToolCallTally } from './agent-records.js';
import { summarizeToolInput } from './tool-summary.js';

/**
 * What an AI attempt does while it works, as durable node events the run's SSE stream delivers
 * as they are written: `agent_text` and `agent_thinking` (the answer's text and the model's
 * thinking, coalesced: one event per `flushMs` or per `batchChars`, never one per token),
 * `tool_called` (tool, id, a one-line `summary` of the input, the input) and `tool_completed`
 * (the same tool, id and summary, the output, `is_error`, `refused`, `duration_ms` from the call
 * to its result as Cairn saw them), `provider_rate_limited` and `provider_retrying`.
 *
 * Events are batched on their way to the store: a write waits `commitMs` for the events that
 * follow the first (a commit costs far more than an event: 0.3 ms of CPU per event written one
 * by one, by `npm run bench -- activity`), and while one write is in flight the next events queue
 * for the next. The attempt's end writes what is queued at once.
 *
 * Caps: a tool's input or output is cut to `toolTextMax` characters in its event; an attempt's
 * events carry at most `nodeChars` characters of text, input and output in all. What is cut goes
 * to the attempt's activity file in the run's artifacts (`<node outputs>/<node>/<attempt>.activity.jsonl`,
 * one JSON line per cut text), and the event that was cut says so:
 * `persisted: { truncated: true, originalChars, spillPath }`. Past the node's cap, text and
 * thinking are written to the file only (the event that reached the cap says so), and tool events
 * keep their tool, summary, outcome and duration with an empty input or output.
 */

export interface ActivityLimits {
  /** Longest a text or thinking batch waits before it is written. */
  flushMs: number;
  /** A text or thinking batch is written once it holds this many characters (and no event holds more). */
  batchChars: number;
  /** Longest tool input or output kept in its event. */
  toolTextMax: number;
  /** Characters of text, thinking, tool input and output an attempt's events carry in all. */
  nodeChars: number;
  /** Longest an event waits for others to share its commit. */
  commitMs: number;
}

export const ACTIVITY_LIMITS: ActivityLimits = {
  flushMs: 250,
  batchChars: 4 * 1024,
  toolTextMax: 2_000,
  nodeChars: 256 * 1024,
  commitMs: 100,
};

export type ActivityTask = Pick<AgentAttemptTask, 'runId' | 'conversationId' | 'path' | 'nodeId' | 'provider' | 'outputSpillDir' | 'attempt'>;

/** How an event's text was cut, and where the whole of it is. */
interface Persisted {
  truncated: true;
  originalChars: number;
  spillPath: string;
}

type TextKind = 'text' | 'thinking';
const textEventType: Record<TextKind, string> = { text: 'agent_text', thinking: 'agent_thinking' };

export class AgentActivity {
  private queue: NewRunEvent[] = [];
  private writing: Promise<void> | undefined;
  private pending: { kind: TextKind; body: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Characters the attempt's events carry so far. */
  private carried = 0;
  private overCap = false;
  private spillLines: string[] = [];
  private spilling: Promise<void> = Promise.resolve();
  private spillDirMade = false;
  private closing = false;
  private gathering: { timer: NodeJS.Timeout; done: () => void } | undefined;
  private readonly spillPath: string;
  private readonly calls = new Map<string, { at: number; summary: string }>();
  /** Events written (for the bench and the tests of the caps). */
  eventsWritten = 0;

  constructor(
    private readonly task: ActivityTask,
    private readonly store: Pick<Store, 'appendEvents'>,
    private readonly tally: ToolCallTally,
    private readonly limits: ActivityLimits = ACTIVITY_LIMITS,
  ) {
    this.spillPath = join(task.outputSpillDir, fileNameFor(task.path), `${task.attempt.id}.activity.jsonl`);
  }

  /** Notes one chunk of the provider's stream (the `end` chunk is not one). */
  see(chunk: ProviderChunk): void {
    switch (chunk.type) {
      case 'text':
      case 'thinking':
        this.addText(chunk.type, chunk.text);
        return;
      case 'tool_call': {
        this.flushText();
        const name = this.tally.see(chunk) ?? chunk.name;
        const summary = summarizeToolInput(chunk.input);
        if (chunk.id !== undefined) this.calls.set(chunk.id, { at: performance.now(), summary });
        const input = this.fit('tool_called', 'input', JSON.stringify(chunk.input ?? null), chunk.id, name);
        this.enqueue('tool_called', {
          tool_name: name,
          ...(chunk.id !== undefined ? { tool_call_id: chunk.id } : {}),
          summary,
          input: input.text,
          ...(input.persisted ? { persisted: input.persisted } : {}),
        });
        return;
      }
      case 'tool_result': {
        this.flushText();
        const tool = this.tally.see(chunk);
        const call = chunk.id !== undefined ? this.calls.get(chunk.id) : undefined;
        if (chunk.id !== undefined) this.calls.delete(chunk.id);
        const output = this.fit('tool_completed', 'output', chunk.output, chunk.id, tool);
        this.enqueue('tool_completed', {
          ...(tool !== undefined ? { tool_name: tool } : {}),
          ...(chunk.id !== undefined ? { tool_call_id: chunk.id } : {}),
          ...(call !== undefined ? { summary: call.summary } : {}),
          output: output.text,
          ...(chunk.isError || chunk.refused ? { is_error: true } : {}),
          ...(chunk.refused ? { refused: true } : {}),
          ...(call !== undefined ? { duration_ms: Math.round(performance.now() - call.at) } : {}),
          ...(output.persisted ? { persisted: output.persisted } : {}),
        });
        return;
      }
      case 'rate_limit':
      case 'retrying': {
        this.flushText();
        const event = chunkEvent(this.task, chunk);
        if (event) this.push(event);
        return;
      }
      default:
        return;
    }
  }

  /** Writes what is left (the last text batch) and waits for every write; call once, at the end. */
  async close(): Promise<void> {
    this.closing = true;
    this.endGathering();
    this.flushText();
    while (this.writing !== undefined) await this.writing;
    await this.spilling;
  }

  private addText(kind: TextKind, text: string): void {
    if (text === '') return;
    if (this.pending !== undefined && this.pending.kind !== kind) this.flushText();
    this.pending ??= { kind, body: '' };
    this.pending.body += text;
    const { batchChars } = this.limits;
    while (this.pending.body.length >= batchChars) {
      const body = this.pending.body;
      this.pending.body = body.slice(batchChars);
      this.writeText(kind, body.slice(0, batchChars));
    }
    if (this.pending.body === '') {
      this.pending = undefined;
      this.stopTimer();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flushText();
      }, this.limits.flushMs);
    }
  }

  private flushText(): void {
    this.stopTimer();
    const pending = this.pending;
    this.pending = undefined;
    if (pending !== undefined && pending.body !== '') this.writeText(pending.kind, pending.body);
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One text or thinking event; past the node's cap, the file only (the event that reaches it says so). */
  private writeText(kind: TextKind, body: string): void {
    const type = textEventType[kind];
    if (this.overCap) {
      this.spill({ event: type, field: 'text', text: body });
      return;
    }
    const room = this.limits.nodeChars - this.carried;
    if (body.length <= room) {
      this.carried += body.length;
      this.enqueue(type, { text: body });
      return;
    }
    this.overCap = true;
    this.carried = this.limits.nodeChars;
    this.spill({ event: type, field: 'text', text: body.slice(room) });
    this.enqueue(type, { text: body.slice(0, room), persisted: this.persisted(body.length - room) });
  }

  /** A tool's input or output as its event keeps it: whole, or cut with the whole of it in the file. */
  private fit(event: string, field: 'input' | 'output', full: string, id: string | undefined, tool: string | undefined): { text: string; persisted?: Persisted } {
    const room = this.overCap ? 0 : Math.min(this.limits.toolTextMax, this.limits.nodeChars - this.carried);
    if (full.length <= room) {
      this.carried += full.length;
      return { text: full };
    }
    const head = full.slice(0, room);
    this.carried += head.length;
    if (this.carried >= this.limits.nodeChars) this.overCap = true;
    this.spill({ event, field, text: full, ...(id !== undefined ? { tool_call_id: id } : {}), ...(tool !== undefined ? { tool_name: tool } : {}) });
    return { text: head === '' ? '' : `${head}…`, persisted: this.persisted(full.length) };
  }

  private persisted(originalChars: number): Persisted {
    return { truncated: true, originalChars, spillPath: this.spillPath };
  }

  private enqueue(eventType: string, data: Record<string, unknown>): void {
    this.push({ run_id: this.task.runId, conversation_id: this.task.conversationId, step_name: this.task.path, event_type: eventType, data: { node_id: this.task.nodeId, ...data } });
  }

  private push(event: NewRunEvent): void {
    this.queue.push(event);
    this.writing ??= this.pump();
  }

  /** Writes the queue in batches until it is empty; events queued meanwhile go in the next batch. */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await this.gather();
        // The file first, so an event never names a file that does not hold its text yet.
        await this.spilling;
        const batch = this.queue;
        this.queue = [];
        try {
          await this.store.appendEvents(batch);
          this.eventsWritten += batch.length;
        } catch {
          // A failed write loses these events, never the attempt (its record says what matters).
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /** Waits `commitMs` for more events to share the commit, or less when the attempt ends. */
  private gather(): Promise<void> {
    if (this.closing) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.gathering = undefined;
        resolve();
      };
      this.gathering = { timer: setTimeout(done, this.limits.commitMs), done };
    });
  }

  private endGathering(): void {
    const gathering = this.gathering;
    if (gathering === undefined) return;
    clearTimeout(gathering.timer);
    gathering.done();
  }

  private spill(line: Record<string, unknown>): void {
    this.spillLines.push(`${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`);
    this.spilling = this.spilling.then(async () => {
      const lines = this.spillLines;
      this.spillLines = [];
      if (lines.length === 0) return;
      try {
        if (!this.spillDirMade) await makePrivateDir(join(this.spillPath, '..'));
        this.spillDirMade = true;
        await appendFile(this.spillPath, lines.join(''), { mode: PRIVATE_FILE_MODE });
      } catch {
        // The events still say what was cut; a full disk costs the cut text only.
      }
    });
  }
}
