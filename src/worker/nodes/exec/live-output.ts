import { StringDecoder } from 'node:string_decoder';
import type { NewRunEvent } from '../../../store/schemas/event.js';

/**
 * What a running bash or script node prints, shown while it runs: its stdout and stderr become
 * `node_output` events, a batch per `FLUSH_MS`, so `cairn run logs --follow` can tail a node that
 * runs long. A node that ends within one batch writes none (its output is in its terminal record,
 * as before), so a fan-out of quick nodes costs nothing more. At most `LIVE_CAP_BYTES` a attempt
 * go out live; past that one event says so, and the rest is only in the terminal record. Writing
 * is best effort: a batch the store refuses (a full disk) is dropped, never the attempt.
 */

const FLUSH_MS = 500;
export const LIVE_CAP_BYTES = 64 * 1024;

export type OutputStreamName = 'stdout' | 'stderr';

export interface LiveOutputFacts {
  runId: string;
  conversationId: string;
  path: string;
  nodeId: string;
  attemptId: string;
}

export class LiveOutput {
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private pending: { stream: OutputStreamName; text: string }[] = [];
  private sentBytes = 0;
  private capped = false;
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly facts: LiveOutputFacts,
    private readonly append: (events: NewRunEvent[]) => Promise<unknown>,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** A chunk the node printed (only after its start is recorded). */
  push(stream: OutputStreamName, chunk: Buffer): void {
    if (this.stopped || this.capped) return;
    const room = LIVE_CAP_BYTES - this.sentBytes;
    const take = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.sentBytes += take.length;
    const text = this.decoders[stream].write(take);
    const last = this.pending.at(-1);
    if (last?.stream === stream) last.text += text;
    else if (text !== '') this.pending.push({ stream, text });
    if (take.length < chunk.length) this.capped = true;
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** The attempt ended: nothing more goes out live (what is pending is in its terminal record). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writes;
  }

  private flush(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const batch = this.pending.filter((p) => p.text !== '');
    this.pending = [];
    const events: NewRunEvent[] = batch.map((p) => this.event({ stream: p.stream, text: p.text }));
    if (this.capped) {
      events.push(this.event({ truncated: true, limit_bytes: LIVE_CAP_BYTES }));
      this.stopped = true;
    }
    if (events.length === 0) return;
    this.writes = this.writes.then(() => this.append(events)).catch(() => undefined);
  }

  private event(data: Record<string, unknown>): NewRunEvent {
    const { runId, conversationId, path, nodeId, attemptId } = this.facts;
    return { run_id: runId, conversation_id: conversationId, step_name: path, event_type: 'node_output', data: { node_id: nodeId, attempt_id: attemptId, ...data } };
  }
}
