import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { ATTEMPT_CONTROL_CHANNEL, attemptNoticeSchema, type AttemptControl } from '../attempt-protocol.js';
import type { StopRequest } from '../cancel-reason.js';

export interface AttemptWhereabouts {
  /** Group id of the attempt's child while it may be running (cleared by the `exited` notice). */
  pid?: number;
  /** The thread running the attempt, once it has spawned. */
  threadId?: number;
}

/**
 * The pool's view of the attempts it has in flight, kept from the workers' notices on the
 * control channel: which process group each one's child leads and which thread runs it, so that
 * the pool can stop an attempt itself when its worker does not answer.
 */
export class AttemptTracker {
  private readonly channel = new BroadcastChannel(ATTEMPT_CONTROL_CHANNEL);
  /** Attempts of this pool in flight. */
  private readonly attempts = new Map<string, AttemptWhereabouts>();
  /** Pings waiting for their pong, by nonce. */
  private readonly pings = new Map<string, () => void>();

  constructor() {
    this.channel.onmessage = (event) => this.onNotice((event as MessageEvent).data);
    // The channel must not keep a process alive on its own; the pool's threads do that.
    this.channel.unref();
  }

  begin(attemptId: string): void {
    this.attempts.set(attemptId, {});
  }

  end(attemptId: string): void {
    this.attempts.delete(attemptId);
  }

  whereabouts(attemptId: string): AttemptWhereabouts {
    return this.attempts.get(attemptId) ?? {};
  }

  /** Process groups of attempts in flight whose child may still be running. */
  livePids(): number[] {
    return [...this.attempts.values()].flatMap((a) => (a.pid !== undefined ? [a.pid] : []));
  }

  postCancel(attemptId: string, stop: StopRequest): void {
    const message: AttemptControl = { type: 'cancel', attemptId, reason: stop.reason, ...(stop.text ? { text: stop.text } : {}) };
    this.channel.postMessage(message);
  }

  /**
   * Whether the thread's event loop still turns: it answers a ping within `withinMs`. A thread
   * that is merely slow to stop one attempt answers; one that is blocked does not.
   */
  isThreadResponsive(threadId: number, withinMs: number): Promise<boolean> {
    const nonce = randomUUID();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.pings.delete(nonce);
        resolve(false);
      }, withinMs);
      this.pings.set(nonce, () => {
        clearTimeout(timer);
        this.pings.delete(nonce);
        resolve(true);
      });
      this.channel.postMessage({ type: 'ping', threadId, nonce } satisfies AttemptControl);
    });
  }

  close(): void {
    this.channel.close();
  }

  private onNotice(data: unknown): void {
    const parsed = attemptNoticeSchema.safeParse(data);
    if (!parsed.success) return;
    const notice = parsed.data;
    if (notice.type === 'pong') return this.pings.get(notice.nonce)?.();
    // Other pools' notices and cancels share the channel: only our attempts count.
    if (!this.attempts.has(notice.attemptId)) return;
    const known = this.attempts.get(notice.attemptId)!;
    if (notice.type === 'spawned') {
      known.pid = notice.pid;
      if (notice.threadId !== undefined) known.threadId = notice.threadId;
    } else {
      // The thread is still remembered: it may yet be writing the attempt's record.
      delete known.pid;
    }
  }
}
